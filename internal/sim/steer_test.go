package sim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

// steerWorkload is a cluster of one node of four L4s, on which jobs take
// three times their trace runtime, then one of four H100s (node 2, so that
// placement alone prefers the L4s), and one-GPU jobs of one shape: a burst
// of eight at the start, which fills both nodes so that the scoring model
// observes the shape on both models, then, from 40 minutes on, one every 20 minutes, each
// running 10 minutes on an H100.
func steerWorkload(t *testing.T, noSteering bool) *Workload {
	t.Helper()
	c, err := ParseCluster("1x4:L4@3+1x4:H100")
	if err != nil {
		t.Fatal(err)
	}
	var jobs []Job
	for i := range 40 {
		submit := time.Duration(0)
		if i >= 8 {
			submit = time.Duration(i-6) * 20 * time.Minute
		}
		jobs = append(jobs, Job{ID: int64(i + 1), Name: "job", User: int64(i%3 + 1), Submit: submit, Runtime: 10 * time.Minute,
			GPUs: 1, Priority: scheduler.PriorityNormal})
	}
	w, err := Prepare(jobs, c, PrepareOptions{NoSteering: noSteering})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// On a cluster of two GPU models the replay steers: once the first jobs
// have finished on both models, the core sends the later ones to the model
// the scoring model learned runs them three times faster, where placement
// alone keeps putting them on the first node's slow GPUs. Turned off
// (PrepareOptions.NoSteering), the same workload runs on the L4s.
func TestReplaySteersToTheFasterModel(t *testing.T) {
	t.Parallel()
	on, off := steerWorkload(t, false), steerWorkload(t, true)
	if !on.Steer || off.Steer {
		t.Fatalf("Steer = %v with steering, %v without", on.Steer, off.Steer)
	}
	cfg := scheduler.DefaultConfig()
	ran := func(w *Workload) (map[string]int, time.Duration) {
		t.Helper()
		r, err := Run(w, cfg)
		if err != nil {
			t.Fatal(err)
		}
		models := map[string]int{}
		var jct time.Duration
		for _, rec := range r.Records[8:] { // after the burst
			if !rec.Done {
				t.Fatalf("job %d did not complete", rec.Job.ID)
			}
			models[rec.Model]++
			jct += rec.End - rec.Job.Submit
		}
		return models, jct / time.Duration(len(r.Records)-8)
	}
	steered, steeredJCT := ran(on)
	plain, plainJCT := ran(off)
	if diff := cmp.Diff(map[string]int{"H100": 32}, steered); diff != "" {
		t.Errorf("steered: the jobs after the burst ran on (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"L4": 32}, plain); diff != "" {
		t.Errorf("not steered: the jobs after the burst ran on (-want +got):\n%s", diff)
	}
	if steeredJCT != 10*time.Minute || plainJCT != 30*time.Minute {
		t.Errorf("mean JCT after the burst %v steered, %v not; want 10m and 30m", steeredJCT, plainJCT)
	}
}

// A cluster of one GPU model does not steer; the scoring configuration
// must be valid.
func TestPrepareSteering(t *testing.T) {
	t.Parallel()
	jobs := []Job{{ID: 1, User: 1, Runtime: time.Minute, GPUs: 1, Priority: scheduler.PriorityNormal}}
	w, err := Prepare(jobs, Cluster{Nodes: 2, GPUsPerNode: 8, Model: "H100"}, PrepareOptions{})
	if err != nil || w.Steer {
		t.Fatalf("one model: Steer = %v, %v", w != nil && w.Steer, err)
	}
	bad := scoring.DefaultConfig()
	bad.Lambda = -1
	if _, err := Prepare(jobs, Cluster{Nodes: 1, GPUsPerNode: 8, Model: "L4", More: []NodeGroup{{Nodes: 1, GPUsPerNode: 8, Model: "H100"}}},
		PrepareOptions{Scoring: bad}); err == nil {
		t.Fatal("λ = −1 accepted")
	}
}
