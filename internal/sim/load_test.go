package sim

import (
	"math"
	"testing"
	"time"
)

// loadJobs are four 1-GPU jobs of 100 s arriving over 300 s: 400 GPU-s
// asked while 2 GPUs offer 600 GPU-s, an offered load of 2/3.
func loadJobs() []Job {
	return []Job{
		{ID: 1, GPUs: 1, Runtime: 100 * time.Second, Submit: 1000 * time.Second},
		{ID: 2, GPUs: 1, Runtime: 100 * time.Second, Submit: 1100 * time.Second},
		{ID: 3, GPUs: 1, Runtime: 100 * time.Second, Submit: 1200 * time.Second},
		{ID: 4, GPUs: 1, Runtime: 100 * time.Second, Submit: 1300 * time.Second},
	}
}

func TestOfferedLoad(t *testing.T) {
	t.Parallel()
	if l, ok := OfferedLoad(loadJobs(), 2); !ok || math.Abs(l-2.0/3) > 1e-12 {
		t.Errorf("load %v %v, want 2/3", l, ok)
	}
	if _, ok := OfferedLoad(loadJobs()[:1], 2); ok {
		t.Error("one job has a load")
	}
}

func TestScaleToLoadHitsTarget(t *testing.T) {
	t.Parallel()
	for name, target := range map[string]float64{"compress": 1.1, "stretch": 0.3, "same": 2.0 / 3, "heavy": 5} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			jobs := loadJobs()
			f, err := ScaleToLoad(jobs, 2, target)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := OfferedLoad(jobs, 2)
			if math.Abs(got-target) > 1e-9 || math.Abs(f-(2.0/3)/target) > 1e-12 {
				t.Errorf("load %v factor %v, want %v", got, f, target)
			}
			if jobs[0].Submit != 1000*time.Second || jobs[3].Runtime != 100*time.Second {
				t.Errorf("the first arrival or a runtime moved: %+v", jobs)
			}
		})
	}
	if _, err := ScaleToLoad(loadJobs()[:1], 2, 0.9); err == nil {
		t.Error("scaled a single arrival")
	}
	if _, err := ScaleToLoad(loadJobs(), 2, 0); err == nil {
		t.Error("scaled to load 0")
	}
}

func TestPrepare(t *testing.T) {
	t.Parallel()
	jobs := []Job{
		{ID: 1, GPUs: 1, Runtime: 100 * time.Second, Submit: 50 * time.Second},
		{ID: 2, GPUs: 17, Runtime: 100 * time.Second, Submit: 10 * time.Second}, // larger than 2x8
		{ID: 3, GPUs: 12, Runtime: 100 * time.Second, Submit: 20 * time.Second}, // spans nodes
		{ID: 4, GPUs: 1, Runtime: 100 * time.Second, Submit: 20 * time.Second},
		{ID: 5, GPUs: 1, Runtime: 100 * time.Second, Submit: 90 * time.Second},
	}
	w, err := Prepare(jobs, Cluster{Nodes: 2, GPUsPerNode: 8, Model: "H100"}, PrepareOptions{Limit: 3, Load: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if w.TooLarge != 1 || w.Limited != 1 || w.MultiNode != 1 || len(w.Jobs) != 3 {
		t.Fatalf("too large %d, limited %d, multi-node %d, %d jobs", w.TooLarge, w.Limited, w.MultiNode, len(w.Jobs))
	}
	if w.Jobs[0].ID != 3 || w.Jobs[1].ID != 4 || w.Jobs[2].ID != 1 || w.Jobs[0].Submit != 0 || !w.Jobs[0].MultiNode {
		t.Errorf("jobs not sorted by arrival from 0: %+v", w.Jobs)
	}
	if math.Abs(w.OfferedLoad-0.5) > 1e-9 || math.Abs(w.Scale-(1400.0/(16*30))/0.5) > 1e-9 {
		t.Errorf("load %v scale %v", w.OfferedLoad, w.Scale)
	}
	if jobs[0].Submit != 50*time.Second || jobs[2].MultiNode {
		t.Error("Prepare changed its input")
	}
	noisy, err := Prepare(jobs, Cluster{Nodes: 2, GPUsPerNode: 8, Model: "H100"}, PrepareOptions{EstimateNoise: 0.5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Prepare(jobs, Cluster{Nodes: 2, GPUsPerNode: 8, Model: "H100"}, PrepareOptions{EstimateNoise: 0.5, Seed: 3})
	for i, j := range noisy.Jobs {
		if j.Estimate <= 0 || j.Estimate == j.Runtime || j.Estimate != again.Jobs[i].Estimate {
			t.Errorf("estimate of job %d: %v (runtime %v, again %v)", j.ID, j.Estimate, j.Runtime, again.Jobs[i].Estimate)
		}
	}
	if _, err := Prepare(jobs[1:2], Cluster{Nodes: 2, GPUsPerNode: 8, Model: "H100"}, PrepareOptions{}); err == nil {
		t.Error("prepared a workload with no job")
	}
}
