package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// MIGRow is one replay of a policy with every GPU whole, or with the
// workload's MIG layout and its fractional jobs on slices.
type MIGRow struct {
	Policy string `json:"policy"`
	MIG    bool   `json:"mig"`
	// SliceJobs counts the jobs that asked for a slice (0 without MIG).
	SliceJobs int `json:"slice_jobs"`
	// SliceWaitS is the mean wait of the fractional jobs (on slices with
	// MIG, on whole GPUs without); WholeWaitS the others'.
	SliceWaitS float64 `json:"fractional_avg_wait_s"`
	WholeWaitS float64 `json:"whole_avg_wait_s"`
	// JobsPerGPUHour is completed jobs per GPU-hour held, a slice
	// counting as its fraction of a GPU: how many jobs the GPU time used
	// served.
	JobsPerGPUHour float64 `json:"jobs_per_gpu_hour"`
	// JobsPerCapacityHour is completed jobs per GPU-hour of the cluster
	// over the makespan: jobs / (GPUs × makespan).
	JobsPerCapacityHour float64 `json:"jobs_per_capacity_gpu_hour"`
	Metrics             Metrics `json:"metrics"`
}

// CompareMIG replays w (a workload whose cluster has a MIG layout) under
// each policy twice: with every GPU whole and the fractional jobs taking
// one whole GPU each (w.WithoutMIG), then with the layout and the
// fractional jobs on slices. Arrivals are the same in both.
func CompareMIG(w *Workload, ps []Policy, workers int) ([]MIGRow, error) {
	whole := w.WithoutMIG()
	mw, err := Compare(whole, ps, workers)
	if err != nil {
		return nil, err
	}
	mm, err := Compare(w, ps, workers)
	if err != nil {
		return nil, err
	}
	fractional := map[int64]bool{}
	for _, j := range w.Jobs {
		if j.Profile != "" || j.GPUShare > 0 {
			fractional[j.ID] = true
		}
	}
	rows := make([]MIGRow, 0, 2*len(ps))
	for k := range ps {
		for _, side := range []struct {
			m   Metrics
			mig bool
		}{{mw[k], false}, {mm[k], true}} {
			r := MIGRow{Policy: ps[k].Name, MIG: side.mig, Metrics: side.m}
			if side.mig {
				r.SliceJobs = w.SliceJobs
			}
			if h := float64(w.Cluster.GPUs()) * side.m.Makespan / 3600; h > 0 {
				r.JobsPerCapacityHour = float64(side.m.Jobs) / h
				if held := side.m.Utilization * h; held > 0 {
					r.JobsPerGPUHour = float64(side.m.Jobs) / held
				}
			}
			r.SliceWaitS, r.WholeWaitS = splitWaits(side.m.Detail, fractional)
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// splitWaits is the mean wait of the fractional jobs and of the others.
func splitWaits(d *Detail, fractional map[int64]bool) (frac, whole float64) {
	if d == nil {
		return 0, 0
	}
	var f, o []float64
	for _, jw := range d.JobWaits {
		if fractional[jw.Job] {
			f = append(f, jw.Wait)
		} else {
			o = append(o, jw.Wait)
		}
	}
	return mean(f), mean(o)
}

// WriteMIGJSON prints the rows as a JSON array.
func WriteMIGJSON(w io.Writer, rows []MIGRow) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// WriteMIGText prints what was compared, then a row per policy and side.
func WriteMIGText(w io.Writer, rep Report, rows []MIGRow) error {
	var b strings.Builder
	wl := rep.Workload
	c := wl.Cluster
	fmt.Fprintf(&b, "trace     %s (%s), %d jobs replayed\n", rep.Trace.File, rep.Trace.Format, len(wl.Jobs))
	for _, n := range rep.Trace.Notes {
		fmt.Fprintf(&b, "%-9s %s\n", "", n)
	}
	label := "MIG"
	if len(c.Shared) > 0 && len(c.MIG) == 0 {
		label = "shared"
		fmt.Fprintf(&b, "cluster   %s, %d GPUs; shared %s: the first %d GPUs in node order shared into slots, %d left whole\n",
			c, c.GPUs(), SharedString(c.Shared), c.sharedGPUs(), max(0, c.GPUs()-c.sharedGPUs()))
		fmt.Fprintf(&b, "shares    %d fractional jobs ask for their share of one shared GPU (slots rounded up, best fit);\n"+
			"          runtime unchanged on a share\n", wl.SliceJobs)
	} else {
		fmt.Fprintf(&b, "cluster   %s, %d GPUs; MIG %s: the first %d GPUs in node order split, %d left whole\n",
			c, c.GPUs(), MIGString(c.MIG), c.splitGPUs(), max(0, c.GPUs()-c.splitGPUs()))
		stretch := "runtime unchanged on a slice"
		if wl.MIGStretch {
			stretch = "runtime x max(1, share / slice fraction) on a slice"
		}
		fmt.Fprintf(&b, "slices    %d fractional jobs ask for one slice: the smallest profile of the layout with at least\n"+
			"          their share of a GPU, else the largest; %s\n", wl.SliceJobs, stretch)
	}
	fmt.Fprintf(&b, "load      offered %.3f, a fractional job counted as 1 GPU both ways (same arrivals)\n", wl.OfferedLoad)
	b.WriteString("metrics   jobs/GPU-h = completed jobs / GPU-hours held (a slice its fraction of a GPU);\n" +
		"          jobs/cap-h = completed jobs / (GPUs x makespan); util = GPU-h held / (GPUs x makespan);\n" +
		"          wait = first start - arrival (frac: the fractional jobs, whole: the others)\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tGPUs\tjobs\tjobs/GPU-h\tjobs/cap-h\twait\tfrac wait\twhole wait\tp95 wait\tutil\t")
	for _, r := range rows {
		mode := "whole"
		if r.MIG {
			mode = label
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.4f\t%.4f\t%s\t%s\t%s\t%s\t%.3f\t\n", r.Policy, mode, r.Metrics.Jobs, r.JobsPerGPUHour,
			r.JobsPerCapacityHour, human(r.Metrics.AvgWait), human(r.SliceWaitS), human(r.WholeWaitS), human(r.Metrics.P95Wait),
			r.Metrics.Utilization)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
