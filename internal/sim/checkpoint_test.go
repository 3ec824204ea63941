package sim

import (
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// TestRunCheckpointDemotion: under the default (las-backfill) a fresh job
// stops a demoted checkpointing job, which keeps its progress and its
// attained service, reloads for the restart overhead, and finishes; only
// the reload is lost. The same job without checkpointing is never stopped
// for the fresh one.
func TestRunCheckpointDemotion(t *testing.T) {
	t.Parallel()
	jobs := func(ck bool) []Job {
		return []Job{
			{ID: 1, Name: "long", User: 1, GPUs: 2, Runtime: 10 * time.Hour, Priority: scheduler.PriorityNormal, Checkpoint: ck},
			{ID: 2, Name: "short", User: 2, GPUs: 2, Submit: 2 * time.Hour, Runtime: 30 * time.Minute, Priority: scheduler.PriorityNormal},
		}
	}
	w := &Workload{Cluster: Cluster{Nodes: 1, GPUsPerNode: 2, Model: "H100"}, Scale: 1, RestartOverhead: 2 * time.Minute, Jobs: jobs(true)}
	r, err := Run(w, scheduler.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	long, short := r.Records[0], r.Records[1]
	// short stops long at 2h (long has had 4 GPU-h: level 3 of 4) and runs
	// 2h–2h30m; long resumes at 2h30m with 8h left plus 2m of reload.
	if r.Preemptions != 1 || long.Preempted != 1 || short.FirstStart != 2*time.Hour || short.End != 150*time.Minute ||
		long.Start != 150*time.Minute || long.End != 150*time.Minute+8*time.Hour+2*time.Minute {
		t.Fatalf("records %+v %+v", long, short)
	}
	if r.LostGPUSeconds != 2*120 {
		t.Errorf("lost %v GPU-s, want the reload only (240)", r.LostGPUSeconds)
	}
	w.Jobs = jobs(false)
	r, err = Run(w, scheduler.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if r.Preemptions != 0 || r.Records[1].FirstStart != 10*time.Hour {
		t.Errorf("a job that does not checkpoint was stopped by demotion: %+v", r.Records)
	}
}

// TestRunStarvingJobStarts: a checkpointing job stopped for fresh work
// waits in a later level while fresh jobs keep arriving faster than they
// finish; once it has waited past the starvation limit (12 h) it is
// promoted, resumes and finishes before the stream does.
func TestRunStarvingJobStarts(t *testing.T) {
	t.Parallel()
	w := &Workload{Cluster: Cluster{Nodes: 1, GPUsPerNode: 1, Model: "H100"}, Scale: 1, RestartOverhead: time.Minute}
	w.Jobs = append(w.Jobs, Job{ID: 1, Name: "long", User: 1, GPUs: 1, Runtime: 10 * time.Hour, Priority: scheduler.PriorityNormal, Checkpoint: true})
	for i := range 40 { // one hour of work every 50 minutes
		w.Jobs = append(w.Jobs, Job{ID: int64(2 + i), Name: "fresh", User: 2, GPUs: 1, Submit: time.Duration(120+i*50) * time.Minute,
			Runtime: time.Hour, Priority: scheduler.PriorityNormal})
	}
	r, err := Run(w, scheduler.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	// It is stopped again after each cooldown while fresh jobs keep coming,
	// but every time it is promoted again: it finishes before the stream.
	long := r.Records[0]
	last := r.Records[len(r.Records)-1]
	if long.Preempted == 0 || !long.Done || long.End > last.End {
		t.Fatalf("the stopped job: %+v; the last fresh job ends at %v", long, last.End)
	}
}

// TestCommittedLoss: a checkpointing job's reload is lost only when its
// resumed run ends, but from the moment it is stopped the snapshot counts
// it as committed (GPUs × restart overhead), through its resumed run, until
// it is counted as lost; the cap thus sees what preemption has decided.
func TestCommittedLoss(t *testing.T) {
	t.Parallel()
	w := &Workload{Cluster: Cluster{Nodes: 1, GPUsPerNode: 2, Model: "H100"}, Scale: 1, RestartOverhead: 2 * time.Minute, Jobs: []Job{
		{ID: 1, Name: "ck", User: 1, GPUs: 2, Runtime: time.Hour, Priority: scheduler.PriorityNormal, Checkpoint: true},
	}}
	s := newSimulator(w, scheduler.DefaultConfig())
	loss := func(at time.Duration) scheduler.PreemptionLoss { return s.snapshot(at).Lost }
	s.start(0, []int64{1, 2}, 0)
	if l := loss(10 * time.Minute); l.CommittedGPUSeconds != 0 || l.LostGPUSeconds != 0 {
		t.Fatalf("before any preemption: %+v", l)
	}
	s.preempt(0, 30*time.Minute)
	if l := loss(30 * time.Minute); l.CommittedGPUSeconds != 240 || l.LostGPUSeconds != 0 {
		t.Fatalf("stopped, reload to come: %+v, want 240 committed, 0 lost", l)
	}
	s.pending = s.pending[:0]
	s.start(0, []int64{1, 2}, 40*time.Minute)
	if l := loss(41 * time.Minute); l.CommittedGPUSeconds != 240 || l.LostGPUSeconds != 0 {
		t.Fatalf("reloading: %+v, want 240 committed, 0 lost", l)
	}
	s.completeUntil(40*time.Minute + 32*time.Minute)
	if l := loss(80 * time.Minute); l.CommittedGPUSeconds != 0 || l.LostGPUSeconds != 240 {
		t.Fatalf("finished: %+v, want 0 committed, 240 lost", l)
	}
}
