package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"text/tabwriter"
	"time"
)

// IdleOptions mark idle tails on a workload and set the idle policy to
// replay (gpusched sim --idle-reclaim; README "Idle reclaim").
type IdleOptions struct {
	// Share of jobs whose GPUs sit idle at the end of their hold (0–1).
	Share float64
	// TailMean is the mean idle tail (exponential), capped at the runtime.
	TailMean time.Duration
	// After and Grace are the policy's idle_after and idle_grace: a tail
	// longer than After+Grace is cut there.
	After, Grace time.Duration
	Seed         uint64
}

// IdleTails draws each job's idle tail: with probability Share, an
// exponential length of mean TailMean, capped at the job's runtime. The
// trace's runtime is the whole hold, tail included. Draws are per job
// from a PCG seeded with (Seed, job ID), so they do not depend on order.
func IdleTails(w *Workload, o IdleOptions) map[int64]time.Duration {
	out := map[int64]time.Duration{}
	for _, j := range w.Jobs {
		rng := rand.New(rand.NewPCG(o.Seed^0x1d1e, uint64(j.ID)))
		if rng.Float64() >= o.Share {
			continue
		}
		out[j.ID] = min(time.Duration(rng.ExpFloat64()*float64(o.TailMean)), j.Runtime)
	}
	return out
}

// Reclaimed is the workload with the release policy applied: each tail
// longer than After+Grace ends there (the GPUs go back), so the job's hold
// shrinks by tail − After − Grace.
func Reclaimed(w *Workload, tails map[int64]time.Duration, o IdleOptions) *Workload {
	out := *w
	out.Jobs = make([]Job, len(w.Jobs))
	copy(out.Jobs, w.Jobs)
	for i, j := range out.Jobs {
		if cut := tails[j.ID] - o.After - o.Grace; cut > 0 {
			out.Jobs[i].Runtime -= cut
			if out.Jobs[i].Estimate > out.Jobs[i].Runtime {
				out.Jobs[i].Estimate = out.Jobs[i].Runtime
			}
		}
	}
	return &out
}

// IdleReport is what reclaim would return on a workload, and the replay of
// the policies with and without it.
type IdleReport struct {
	Jobs           int       `json:"jobs"`
	JobsWithTail   int       `json:"jobs_with_idle_tail"`
	JobsReclaimed  int       `json:"jobs_reclaimed"`
	HeldGPUHours   float64   `json:"held_gpu_hours"`
	IdleGPUHours   float64   `json:"idle_gpu_hours"`
	ReturnedHours  float64   `json:"returned_gpu_hours"`
	ReturnedShare  float64   `json:"returned_share_of_held"`
	IdleAfterS     float64   `json:"idle_after_s"`
	IdleGraceS     float64   `json:"idle_grace_s"`
	WithoutReclaim []Metrics `json:"without_reclaim"`
	WithReclaim    []Metrics `json:"with_reclaim"`
}

// CompareIdle marks tails, counts what reclaim returns, and replays the
// policies on the workload as traced and with reclaim applied.
func CompareIdle(w *Workload, ps []Policy, o IdleOptions, workers int) (*IdleReport, error) {
	tails := IdleTails(w, o)
	r := &IdleReport{Jobs: len(w.Jobs), JobsWithTail: len(tails), IdleAfterS: o.After.Seconds(), IdleGraceS: o.Grace.Seconds()}
	for _, j := range w.Jobs {
		r.HeldGPUHours += float64(j.GPUs) * j.Runtime.Hours()
		t := tails[j.ID]
		r.IdleGPUHours += float64(j.GPUs) * t.Hours()
		if cut := t - o.After - o.Grace; cut > 0 {
			r.JobsReclaimed++
			r.ReturnedHours += float64(j.GPUs) * cut.Hours()
		}
	}
	if r.HeldGPUHours > 0 {
		r.ReturnedShare = r.ReturnedHours / r.HeldGPUHours
	}
	var err error
	if r.WithoutReclaim, err = Compare(w, ps, workers); err != nil {
		return nil, err
	}
	if r.WithReclaim, err = Compare(Reclaimed(w, tails, o), ps, workers); err != nil {
		return nil, err
	}
	return r, nil
}

// WriteText prints the report as a person reads it.
func (r *IdleReport) WriteText(out io.Writer) error {
	fmt.Fprintf(out, "idle reclaim: release after idle_after %s + idle_grace %s\n", time.Duration(r.IdleAfterS*float64(time.Second)), time.Duration(r.IdleGraceS*float64(time.Second)))
	fmt.Fprintf(out, "jobs %d, with an idle tail %d, reclaimed %d\n", r.Jobs, r.JobsWithTail, r.JobsReclaimed)
	fmt.Fprintf(out, "GPU-hours held %.1f, idle in tails %.1f, returned by reclaim %.1f (%.1f%% of held)\n\n",
		r.HeldGPUHours, r.IdleGPUHours, r.ReturnedHours, 100*r.ReturnedShare)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\treclaim\tavg wait s\tp95 wait s\tavg JCT s\tmakespan s\tutilization\t")
	for i := range r.WithoutReclaim {
		for k, m := range []Metrics{r.WithoutReclaim[i], r.WithReclaim[i]} {
			fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.3f\t\n", m.Policy, []string{"off", "on"}[k], m.AvgWait, m.P95Wait, m.AvgJCT, m.Makespan, m.Utilization)
		}
	}
	return tw.Flush()
}

// WriteJSON prints the report as one JSON object.
func (r *IdleReport) WriteJSON(out io.Writer) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
