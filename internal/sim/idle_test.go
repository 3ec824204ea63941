package sim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A tail longer than idle_after + idle_grace is cut there; shorter ones are
// left alone; the returned GPU-hours are the cuts times the GPUs.
func TestIdleReclaimModel(t *testing.T) {
	t.Parallel()
	w := &Workload{Cluster: Cluster{Nodes: 1, GPUsPerNode: 8}, Jobs: []Job{
		{ID: 1, GPUs: 2, Runtime: 10 * time.Hour},
		{ID: 2, GPUs: 4, Runtime: 3 * time.Hour},
		{ID: 3, GPUs: 1, Runtime: time.Hour},
	}}
	o := IdleOptions{After: 2 * time.Hour, Grace: 30 * time.Minute}
	tails := map[int64]time.Duration{1: 6 * time.Hour, 2: 2 * time.Hour}
	got := Reclaimed(w, tails, o)
	want := []time.Duration{10*time.Hour - (6*time.Hour - 150*time.Minute), 3 * time.Hour, time.Hour}
	var runtimes []time.Duration
	for _, j := range got.Jobs {
		runtimes = append(runtimes, j.Runtime)
	}
	if diff := cmp.Diff(want, runtimes); diff != "" {
		t.Fatalf("runtimes after reclaim (-want +got):\n%s", diff)
	}
	if w.Jobs[0].Runtime != 10*time.Hour {
		t.Fatal("Reclaimed changed the workload it was given")
	}
	// Tails are drawn per job: the same seed gives the same tails, capped at the runtime.
	o.Share, o.TailMean, o.Seed = 1, 100*time.Hour, 7
	a, b := IdleTails(w, o), IdleTails(w, o)
	if diff := cmp.Diff(a, b); diff != "" || len(a) != 3 || a[3] > time.Hour {
		t.Fatalf("tails %v vs %v", a, b)
	}
}
