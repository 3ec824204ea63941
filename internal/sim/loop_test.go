package sim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// fcfsConfig is strict FCFS: no backfill, no preemption.
func fcfsConfig(t *testing.T) scheduler.Config {
	t.Helper()
	cfg, ok := scheduler.Preset(scheduler.PolicyFCFS)
	if !ok {
		t.Fatal("no fcfs preset")
	}
	cfg.Backfill, cfg.Preemption = false, false
	return cfg
}

func TestRunThreeJobsFCFS(t *testing.T) {
	t.Parallel()
	w := &Workload{Jobs: threeJobs(), Cluster: Cluster{Nodes: 1, GPUsPerNode: 2, Model: "H100"}, Scale: 1}
	r, err := Run(w, fcfsConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	want := threeJobsResult()
	for i, rec := range r.Records {
		if d := cmp.Diff(want.Records[i], rec); d != "" {
			t.Errorf("record %d (-want +got):\n%s", i, d)
		}
	}
	if r.BusyGPUSeconds != want.BusyGPUSeconds || r.Preemptions != 0 || r.Unschedulable != 0 {
		t.Errorf("result %+v", r)
	}
}

func TestRunPreemptsForHigherPriority(t *testing.T) {
	t.Parallel()
	cfg := scheduler.DefaultConfig()
	cfg.Policy, cfg.Backfill, cfg.Preemption = scheduler.PolicyPriority, false, true
	w := &Workload{Cluster: Cluster{Nodes: 1, GPUsPerNode: 2, Model: "H100"}, Scale: 1, Jobs: []Job{
		{ID: 1, Name: "low", User: 1, GPUs: 2, Runtime: time.Hour, Priority: scheduler.PriorityLow},
		{ID: 2, Name: "high", User: 2, GPUs: 2, Submit: 30 * time.Minute, Runtime: 10 * time.Minute, Priority: scheduler.PriorityHigh},
	}}
	r, err := Run(w, cfg)
	if err != nil {
		t.Fatal(err)
	}
	low, high := r.Records[0], r.Records[1]
	// high stops low at 30m and starts at once; low starts over at 40m.
	if r.Preemptions != 1 || low.Preempted != 1 || high.FirstStart != 30*time.Minute || high.End != 40*time.Minute ||
		low.FirstStart != 0 || low.Start != 40*time.Minute || low.End != 100*time.Minute {
		t.Fatalf("result %+v", r)
	}
	if r.LostGPUSeconds != 2*1800 || r.BusyGPUSeconds != 2*1800+2*600+2*3600 {
		t.Errorf("lost %v busy %v GPU-s", r.LostGPUSeconds, r.BusyGPUSeconds)
	}
}

// TestRunLostCap: under the default (las-backfill) and its 5 % cap, a
// high-priority job would stop a low-priority one that does not checkpoint
// after 30 minutes, losing 3,600 of the 3,600 GPU-seconds held so far: the
// preemption is not made and high waits for low. Under priority the cap
// is checked only before victims are chosen, so the same stop is made
// (TestRunPreemptsForHigherPriority).
func TestRunLostCap(t *testing.T) {
	t.Parallel()
	w := &Workload{Cluster: Cluster{Nodes: 1, GPUsPerNode: 2, Model: "H100"}, Scale: 1, Jobs: []Job{
		{ID: 1, Name: "low", User: 1, GPUs: 2, Runtime: time.Hour, Priority: scheduler.PriorityLow},
		{ID: 2, Name: "high", User: 2, GPUs: 2, Submit: 30 * time.Minute, Runtime: 10 * time.Minute, Priority: scheduler.PriorityHigh},
	}}
	r, err := Run(w, scheduler.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if r.Preemptions != 0 || r.LostGPUSeconds != 0 || r.Records[1].FirstStart != time.Hour {
		t.Fatalf("result %+v", r)
	}
}
