package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Report is a comparison of policies on one workload, ready to print.
type Report struct {
	Trace         *Trace    // what was read
	Workload      *Workload // what was replayed
	Users         int       // --users (traces without a user column)
	Seed          uint64    // --seed
	Load          float64   // target offered load; 0: the trace's own times
	EstimateNoise float64   // σ of the estimate noise; 0: exact runtimes
	Limit         int       // --limit: the first N jobs by arrival; 0: all
	Metrics       []Metrics // one per policy, in the order printed
}

// WriteJSON prints the metrics as a JSON array, one object per policy.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r.Metrics); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// WriteText prints a header saying what was replayed and how, then one
// row per policy, within 100 columns.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	tr, wl := r.Trace, r.Workload
	fmt.Fprintf(&b, "trace     %s (%s), %d rows\n", tr.File, tr.Format, tr.Rows)
	var skipped []string
	for _, k := range slices.Sorted(maps.Keys(tr.Skipped)) {
		skipped = append(skipped, fmt.Sprintf("%d %s", tr.Skipped[k], k))
	}
	if wl.TooLarge > 0 {
		skipped = append(skipped, fmt.Sprintf("%d larger than the cluster", wl.TooLarge))
	}
	if wl.Limited > 0 {
		skipped = append(skipped, fmt.Sprintf("%d after the first %d", wl.Limited, len(wl.Jobs)))
	}
	limit := "all jobs (--limit 0)"
	if r.Limit > 0 {
		limit = fmt.Sprintf("--limit %d (0: all)", r.Limit)
	}
	fmt.Fprintf(&b, "jobs      %d replayed, %s; skipped: %s\n", len(wl.Jobs), limit, orNone(strings.Join(skipped, ", ")))
	label := "mapping"
	for _, n := range tr.Notes {
		fmt.Fprintf(&b, "%-9s %s\n", label, n)
		label = ""
	}
	c := wl.Cluster
	fmt.Fprintf(&b, "cluster   %s: %d GPUs on %d nodes; %d jobs larger than a node may span nodes\n",
		c, c.GPUs(), c.NodeCount(), wl.MultiNode)
	if wl.Steer {
		fmt.Fprintf(&b, "%-9s jobs steered between GPU models by what the scoring model learned from the jobs finished so far\n", "")
	}
	scale := "the trace's own arrival times"
	if r.Load > 0 {
		scale = fmt.Sprintf("arrival times x%.4g", wl.Scale)
	}
	fmt.Fprintf(&b, "load      offered %.3f (GPU-s asked / GPU-s available while jobs arrive); %s\n", wl.OfferedLoad, scale)
	est := "the exact runtime"
	if r.EstimateNoise > 0 {
		est = fmt.Sprintf("runtime x e^(%.2g z), z ~ N(0,1), seed %d", r.EstimateNoise, r.Seed)
	}
	fmt.Fprintf(&b, "users     %d hashed (traces without users), seed %d\n", r.Users, r.Seed)
	if tr.Format == FormatCSV {
		est = "estimate_s where given, else " + est
	}
	fmt.Fprintf(&b, "estimate  %s\n", est)
	b.WriteString("metrics   wait (avg, median, p95) = first start - arrival; JCT (avg) = end - arrival;\n" +
		"          p95 nearest rank (p95_jct_s in --json); util =\n" +
		"          GPU-s held / (GPUs x makespan); jain = Jain's index of users' mean bounded slowdown;\n" +
		"          rho = finish-time fairness (JCT / JCT alone on 1/N of the cluster), mean and max\n" +
		"          over users; lost = GPU-s lost to preemption / GPU-s held (%)\n\n")
	fmt.Fprintf(&b, "%-18s %4s %6s %6s %6s %6s %6s %5s %5s %5s %6s %5s %4s %4s\n",
		"policy", "jobs", "wait", "med", "p95", "JCT", "makesp", "util", "jain",
		"rho", "maxrho", "preem", "lost", "load")
	var dropped []string
	for _, m := range r.Metrics {
		fmt.Fprintf(&b, "%-18s %4d %6s %6s %6s %6s %6s %5.3f %5.3f %5.1f %6.1f %5d %4.1f %4.2f\n",
			m.Policy, m.Jobs, human(m.AvgWait), human(m.MedianWait), human(m.P95Wait), human(m.AvgJCT),
			human(m.Makespan), m.Utilization, m.JainFairness, m.MeanRho, m.MaxRho,
			m.Preemptions, 100*m.LostShare, m.OfferedLoad)
		if m.Unschedulable > 0 {
			dropped = append(dropped, fmt.Sprintf("%s %d", m.Policy, m.Unschedulable))
		}
	}
	if len(dropped) > 0 {
		fmt.Fprintf(&b, "\nunschedulable jobs dropped: %s\n", strings.Join(dropped, ", "))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// human writes seconds compactly: 42s, 12.5m, 3.4h, 5.2d.
func human(s float64) string {
	switch {
	case s < 100:
		return fmt.Sprintf("%.0fs", s)
	case s < 100*60:
		return fmt.Sprintf("%.1fm", s/60)
	case s < 48*3600:
		return fmt.Sprintf("%.1fh", s/3600)
	}
	return fmt.Sprintf("%.1fd", s/86400)
}

// orNone is s, or "none" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
