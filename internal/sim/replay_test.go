package sim

import (
	"reflect"
	"testing"
)

// excerpt is the first 299 pods of the Alibaba openb trace (testdata/README.md).
const excerpt = "testdata/alibaba-openb-excerpt.csv"

// excerptWorkload replays the excerpt on the team's 2x8 cluster at load 0.9.
func excerptWorkload(t *testing.T) (*Trace, *Workload) {
	t.Helper()
	tr, err := ReadTrace(excerpt, FormatAlibaba, ReadOptions{Users: 15, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	w, err := Prepare(tr.Jobs, Cluster{Nodes: 2, GPUsPerNode: 8, Model: "H100"}, PrepareOptions{Load: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	return tr, w
}

func TestReplayExcerptEveryPolicy(t *testing.T) {
	t.Parallel()
	tr, w := excerptWorkload(t)
	if tr.Rows != 299 || len(w.Jobs) != 259 || tr.Skipped["cpu-only"] != 19 || tr.Skipped["never ran"] != 21 {
		t.Fatalf("%d rows, %d jobs, skipped %v", tr.Rows, len(w.Jobs), tr.Skipped)
	}
	ps, err := Policies(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			r, err := Run(w, p.Config)
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range r.Records {
				if !rec.Done || rec.FirstStart < rec.Job.Submit || rec.Start < rec.FirstStart || rec.End != rec.Start+rec.Job.Runtime {
					t.Fatalf("job %s: %+v", rec.Job.Name, rec)
				}
			}
			m := Summarize(p.Name, r, w.Cluster.GPUs(), w.OfferedLoad)
			if m.Jobs != len(w.Jobs) || m.Utilization <= 0 || m.Utilization > 1 || m.AvgWait < 0 ||
				m.JainFairness <= 0 || m.JainFairness > 1 || m.OfferedLoad != w.OfferedLoad {
				t.Errorf("metrics %+v", m)
			}
			again, err := Run(w, p.Config)
			m2 := Summarize(p.Name, again, 16, w.OfferedLoad)
			if err != nil || !reflect.DeepEqual(m2, m) {
				t.Errorf("a second replay differs: %v", err)
			}
		})
	}
}

// Under FCFS without backfill no job starts before one that arrived
// earlier: start times are non-decreasing in arrival order (ties in
// arrival broken by trace order, as Prepare sorts them).
func TestReplayExcerptFCFSStartsInArrivalOrder(t *testing.T) {
	t.Parallel()
	_, w := excerptWorkload(t)
	r, err := Run(w, fcfsConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(r.Records); i++ {
		prev, cur := r.Records[i-1], r.Records[i]
		if cur.Job.Submit < prev.Job.Submit || cur.FirstStart < prev.FirstStart {
			t.Fatalf("%s (arrived %v) started at %v, before %s (arrived %v) at %v",
				cur.Job.Name, cur.Job.Submit, cur.FirstStart, prev.Job.Name, prev.Job.Submit, prev.FirstStart)
		}
	}
	if r.Preemptions != 0 || r.Backfilled != 0 {
		t.Errorf("fcfs preempted %d and backfilled %d", r.Preemptions, r.Backfilled)
	}
}
