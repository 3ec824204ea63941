package sim

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// arrayTasks is an array of n one-GPU tasks of runtime each, IDs from
// first, all arriving at submit, running at most limit at once (0: no
// limit), each after the jobs of after.
func arrayTasks(first int64, n, limit int, runtime, submit time.Duration, after ...int64) []Job {
	jobs := make([]Job, n)
	for k := range jobs {
		jobs[k] = Job{ID: first + int64(k), Name: "task", User: 1, Submit: submit, Runtime: runtime, GPUs: 1,
			Priority: 2, ArrayID: first, ArrayMaxRunning: limit, After: slices.Clone(after)}
	}
	return jobs
}

// peakRunning is the most tasks of array id that ran at once, read from
// the records' last runs ([Start, End), an end before a start at the same
// instant).
func peakRunning(recs []Record, id int64) int {
	type edge struct {
		at    time.Duration
		delta int
	}
	var edges []edge
	for _, r := range recs {
		if r.Job.ArrayID == id && r.Done {
			edges = append(edges, edge{r.Start, +1}, edge{r.End, -1})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.delta - b.delta
	})
	peak, n := 0, 0
	for _, e := range edges {
		n += e.delta
		peak = max(peak, n)
	}
	return peak
}

// TestReplayArrayLimit: on a cluster of 16 GPUs, a 10-task array of
// one-GPU minute-long tasks runs at most %N tasks at once under every
// policy, all complete, and the makespan is ⌈10/N⌉ minutes; without a
// limit all 10 run at once. Tasks behind a dependency start only when it
// completed, and then at most N at a time.
func TestReplayArrayLimit(t *testing.T) {
	t.Parallel()
	minute := time.Minute
	prep := Job{ID: 100, Name: "prep", User: 2, Runtime: 100 * time.Second, GPUs: 1, Priority: 2}
	for name, tc := range map[string]struct {
		jobs     []Job
		peak     int
		makespan time.Duration
		notFrom  time.Duration // no task starts before this
	}{
		"%3":                 {arrayTasks(1, 10, 3, minute, 0), 3, 4 * minute, 0},
		"%1 runs one by one": {arrayTasks(1, 10, 1, minute, 0), 1, 10 * minute, 0},
		"%10 is no limit":    {arrayTasks(1, 10, 10, minute, 0), 10, minute, 0},
		"no limit":           {arrayTasks(1, 10, 0, minute, 0), 10, minute, 0},
		"%3 after prep": {append([]Job{prep}, arrayTasks(1, 10, 3, minute, 0, prep.ID)...), 3,
			100*time.Second + 4*minute, 100 * time.Second},
		"no limit after prep": {append([]Job{prep}, arrayTasks(1, 10, 0, minute, 0, prep.ID)...), 10,
			100*time.Second + minute, 100 * time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ps, err := Policies(nil)
			if err != nil {
				t.Fatal(err)
			}
			w := &Workload{Jobs: tc.jobs, Cluster: Cluster{Nodes: 2, GPUsPerNode: 8, Model: "H100"}, Scale: 1}
			for _, p := range ps {
				r, err := Run(w, p.Config)
				if err != nil {
					t.Fatalf("%s: %v", p.Name, err)
				}
				m := Summarize(p.Name, r, w.Cluster.GPUs(), 0)
				if m.Jobs != len(tc.jobs) || m.Unschedulable != 0 {
					t.Errorf("%s: %d of %d jobs completed, %d dropped", p.Name, m.Jobs, len(tc.jobs), m.Unschedulable)
				}
				if got := peakRunning(r.Records, 1); got != tc.peak {
					t.Errorf("%s: at most %d tasks ran at once, want %d", p.Name, got, tc.peak)
				}
				if got := time.Duration(m.Makespan * float64(time.Second)); got != tc.makespan {
					t.Errorf("%s: makespan %s, want %s", p.Name, got, tc.makespan)
				}
				for _, rec := range r.Records {
					if rec.Job.ArrayID == 1 && rec.FirstStart < tc.notFrom {
						t.Errorf("%s: task %d started at %s, before %s", p.Name, rec.Job.ID, rec.FirstStart, tc.notFrom)
					}
				}
			}
		})
	}
}

// Property: under every policy, on a random workload of arrays (with and
// without %N, some behind a dependency) beside plain jobs, every job
// completes, no array ever has more than N tasks running, and no task
// starts before its dependency completed. The runs checked are each job's
// last (a preempted run leaves no record), so under policies that preempt
// the check on N covers the runs that completed.
func TestReplayArrayLimitProperty(t *testing.T) {
	t.Parallel()
	ps, err := Policies(nil)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(t *rapid.T) {
		var jobs []Job
		limits := map[int64]int{}
		next := func() int64 { return int64(len(jobs) + 1) }
		sec := func(lo, hi int, label string) time.Duration {
			return time.Duration(rapid.IntRange(lo, hi).Draw(t, label)) * time.Second
		}
		for range rapid.IntRange(1, 6).Draw(t, "groups") {
			submit := sec(0, 600, "submit")
			if rapid.Bool().Draw(t, "plain") {
				jobs = append(jobs, Job{ID: next(), User: int64(rapid.IntRange(1, 3).Draw(t, "user")), Submit: submit,
					Runtime: sec(1, 900, "runtime"), GPUs: rapid.IntRange(1, 8).Draw(t, "gpus"),
					Priority: rapid.IntRange(1, 4).Draw(t, "priority")})
				continue
			}
			var after []int64
			if len(jobs) > 0 && rapid.Bool().Draw(t, "after") {
				after = []int64{int64(rapid.IntRange(1, len(jobs)).Draw(t, "dependency"))}
			}
			first, limit := next(), rapid.IntRange(0, 4).Draw(t, "limit")
			limits[first] = limit
			for _, task := range arrayTasks(first, rapid.IntRange(1, 12).Draw(t, "tasks"), limit, 0, submit, after...) {
				task.Runtime = sec(1, 900, "task runtime")
				task.GPUs = rapid.IntRange(1, 2).Draw(t, "task gpus")
				jobs = append(jobs, task)
			}
		}
		w := &Workload{Jobs: jobs, Cluster: Cluster{Nodes: rapid.IntRange(1, 2).Draw(t, "nodes"), GPUsPerNode: 8, Model: "H100"}, Scale: 1}
		for _, p := range ps {
			r, err := Run(w, p.Config)
			if err != nil {
				t.Fatalf("%s: %v", p.Name, err)
			}
			for _, rec := range r.Records {
				if !rec.Done {
					t.Fatalf("%s: job %d did not complete: %+v", p.Name, rec.Job.ID, rec)
				}
				for _, d := range rec.Job.After {
					if end := r.Records[d-1].End; rec.FirstStart < end {
						t.Fatalf("%s: job %d started at %s, before job %d completed at %s", p.Name, rec.Job.ID, rec.FirstStart, d, end)
					}
				}
			}
			for id, limit := range limits {
				if got := peakRunning(r.Records, id); limit > 0 && got > limit {
					t.Fatalf("%s: array %d ran %d tasks at once, %%%d", p.Name, id, got, limit)
				}
			}
		}
	})
}
