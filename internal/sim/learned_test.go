package sim

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

// A job's learned estimate uses only jobs that had finished by its
// arrival; an unseen job type announces the default.
func TestLearnEstimates(t *testing.T) {
	t.Parallel()
	min := time.Minute
	w := &Workload{Cluster: Cluster{Nodes: 1, GPUsPerNode: 8, Model: "H100"}, Jobs: []Job{
		{ID: 1, Submit: 0, Runtime: 10 * min, GPUs: 1, Priority: 2},
		{ID: 2, Submit: 5 * min, Runtime: 20 * min, GPUs: 1, Priority: 2},  // job 1 not done yet
		{ID: 3, Submit: 11 * min, Runtime: 30 * min, GPUs: 1, Priority: 2}, // job 1 done: 10 min
		{ID: 4, Submit: 12 * min, Runtime: 40 * min, GPUs: 4, Priority: 2}, // another type: default
		{ID: 5, Submit: 26 * min, Runtime: 50 * min, GPUs: 1, Priority: 2}, // jobs 1, 2 done: √(10·20)
	}}
	sum, err := LearnEstimates(w, scoring.DefaultConfig(), 4*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var got []time.Duration
	for _, j := range w.Jobs {
		got = append(got, j.Estimate.Round(time.Second))
	}
	want := []time.Duration{4 * time.Hour, 4 * time.Hour, 10 * min, 4 * time.Hour, 849 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("estimates (-want +got):\n%s", diff)
	}
	if sum.Learned != 2 || sum.Defaulted != 3 || sum.Types != 2 || sum.Underestimated != 0.4 {
		t.Fatalf("summary %+v", sum)
	}
	if _, err := LearnEstimates(w, scoring.DefaultConfig(), 0); err == nil {
		t.Fatal("a zero default was accepted")
	}
}

// Property: every learned estimate is the geometric mean of the runtimes of
// the same shape's jobs that had finished by the job's arrival, never of
// later ones; with none, the default.
func TestLearnEstimatesUseOnlyThePast(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(t, "jobs")
		w := &Workload{Cluster: Cluster{Nodes: 2, GPUsPerNode: 8, Model: "H100"}}
		var submit time.Duration
		for i := range n {
			submit += time.Duration(rapid.IntRange(0, 3600).Draw(t, "gap")) * time.Second
			w.Jobs = append(w.Jobs, Job{ID: int64(i + 1), Submit: submit, GPUs: rapid.IntRange(1, 2).Draw(t, "gpus"), Priority: 2,
				Runtime: time.Duration(rapid.IntRange(1, 7200).Draw(t, "runtime")) * time.Second})
		}
		def := 4 * time.Hour
		if _, err := LearnEstimates(w, scoring.DefaultConfig(), def); err != nil {
			t.Fatal(err)
		}
		for _, j := range w.Jobs {
			var logSum float64
			var seen int
			for _, o := range w.Jobs {
				if JobType(o) == JobType(j) && o.Submit+o.Runtime <= j.Submit {
					logSum += math.Log(o.Runtime.Seconds())
					seen++
				}
			}
			want := def
			if seen > 0 {
				want = time.Duration(math.Exp(logSum/float64(seen)) * float64(time.Second))
			}
			if d := j.Estimate - want; d > time.Millisecond || d < -time.Millisecond {
				t.Fatalf("job %d: estimate %v, want %v from %d earlier runs", j.ID, j.Estimate, want, seen)
			}
		}
	})
}
