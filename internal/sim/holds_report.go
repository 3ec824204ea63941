package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"text/tabwriter"
)

// HoldRow is one replay of a policy with the agent's holds off or on.
type HoldRow struct {
	Policy string `json:"policy"`
	Holds  bool   `json:"holds"`
	// Waits (first start − arrival), seconds: the signalled jobs (those a
	// true signal announced) and all jobs; median and p95 (nearest rank).
	SignalledMedianS float64 `json:"signalled_wait_median_s"`
	SignalledP95S    float64 `json:"signalled_wait_p95_s"`
	AllMedianS       float64 `json:"all_wait_median_s"`
	AllP95S          float64 `json:"all_wait_p95_s"`
	// HeldIdleGPUHours is the GPU-time holds kept free and unused, and its
	// share of the GPU-time jobs used.
	HeldIdleGPUHours float64 `json:"held_idle_gpu_hours"`
	HeldIdleShare    float64 `json:"held_idle_share"`
	Signals          int     `json:"signals"`
	Consumed         int     `json:"holds_consumed"`
	Expired          int     `json:"holds_expired"`
}

// CompareHolds replays w under each policy twice, without and with the
// agent's signals sig as holds, and measures the waits of the signalled
// jobs and of all jobs, and the GPU-time held idle.
func CompareHolds(w *Workload, ps []Policy, sig *Signals, workers int) ([]HoldRow, error) {
	signalled := map[int64]bool{}
	for _, s := range sig.List {
		if s.Job != 0 {
			signalled[s.Job] = true
		}
	}
	on := *w
	on.Signals = sig
	rows := make([]HoldRow, 2*len(ps))
	errs := make([]error, len(rows))
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for k := range rows {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			p, wl := ps[k/2], w
			if k%2 == 1 {
				wl = &on
			}
			r, err := Run(wl, p.Config)
			if err != nil {
				errs[k] = fmt.Errorf("policy %s, holds %v: %w", p.Name, k%2 == 1, err)
				return
			}
			rows[k] = holdRow(p.Name, r, signalled)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}

func holdRow(policy string, r *Result, signalled map[int64]bool) HoldRow {
	row := HoldRow{Policy: policy, Holds: r.Holds != nil}
	var all, sig []float64
	for _, rec := range r.Records {
		if !rec.Done {
			continue
		}
		wait := (rec.FirstStart - rec.Job.Submit).Seconds()
		all = append(all, wait)
		if signalled[rec.Job.ID] {
			sig = append(sig, wait)
		}
	}
	slices.Sort(all)
	slices.Sort(sig)
	row.AllMedianS, row.AllP95S = median(all), nearestRank(all, 0.95)
	row.SignalledMedianS, row.SignalledP95S = median(sig), nearestRank(sig, 0.95)
	if h := r.Holds; h != nil {
		row.HeldIdleGPUHours = h.IdleGPUSeconds / 3600
		if r.BusyGPUSeconds > 0 {
			row.HeldIdleShare = h.IdleGPUSeconds / r.BusyGPUSeconds
		}
		row.Signals, row.Consumed, row.Expired = h.Holds, h.Consumed, h.Expired
	}
	return row
}

// WriteHoldTable prints the rows side by side.
func WriteHoldTable(out io.Writer, o SignalOptions, rows []HoldRow) error {
	fmt.Fprintf(out, "\nagent signals: recall %.0f%%, precision %.0f%%, lead %v, hold TTL %v\n", 100*o.Recall, 100*o.Precision, o.Lead, o.TTL)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tholds\tsignalled wait p50\tp95\tall wait p50\tp95\tGPU-h held idle\t(% of used)\tholds used/expired\t")
	for _, r := range rows {
		onOff, idle, used := "off", "-", "-"
		if r.Holds {
			onOff = "on"
			idle = fmt.Sprintf("%.1f\t%.1f%%", r.HeldIdleGPUHours, 100*r.HeldIdleShare)
			used = fmt.Sprintf("%d/%d", r.Consumed, r.Expired)
		} else {
			idle = "-\t-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Policy, onOff, human(r.SignalledMedianS), human(r.SignalledP95S),
			human(r.AllMedianS), human(r.AllP95S), idle, used)
	}
	return tw.Flush()
}

// RunHolds is `gpusched sim --agent-signals`: it draws the signals of w,
// replays every policy without and with holds, and prints the table (or
// the rows as a JSON array).
func RunHolds(out io.Writer, w *Workload, ps []Policy, o SignalOptions, asJSON bool, workers int) error {
	sig, err := MakeSignals(w, o)
	if err != nil {
		return err
	}
	rows, err := CompareHolds(w, ps, sig, workers)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	return WriteHoldTable(out, o, rows)
}
