package sim

import (
	"math"
	"testing"
	"time"
)

// threeJobs is the hand-computed example on a 1x2 cluster under FCFS:
//
//	A user 1, 1 GPU, arrives 0,  runs 100 s: starts 0,   ends 100
//	B user 2, 2 GPUs, arrives 10, runs 50 s: starts 100, ends 150
//	C user 1, 1 GPU, arrives 20, runs 5 s:  starts 150, ends 155 (no backfill)
func threeJobs() []Job {
	return []Job{
		{ID: 1, Name: "A", User: 1, GPUs: 1, Submit: 0, Runtime: 100 * time.Second, Priority: 2},
		{ID: 2, Name: "B", User: 2, GPUs: 2, Submit: 10 * time.Second, Runtime: 50 * time.Second, Priority: 2},
		{ID: 3, Name: "C", User: 1, GPUs: 1, Submit: 20 * time.Second, Runtime: 5 * time.Second, Priority: 2},
	}
}

// threeJobsResult is what a replay of threeJobs must give.
func threeJobsResult() *Result {
	j := threeJobs()
	rec := func(k int, start time.Duration) Record {
		return Record{Job: j[k], FirstStart: start, Start: start, End: start + j[k].Runtime, Done: true, Model: "H100"}
	}
	return &Result{
		Records:        []Record{rec(0, 0), rec(1, 100*time.Second), rec(2, 150*time.Second)},
		BusyGPUSeconds: 100 + 2*50 + 5,
	}
}

func TestSummarizeThreeJobs(t *testing.T) {
	t.Parallel()
	m := Summarize("fcfs", threeJobsResult(), 2, 0.75)
	// waits 0, 90, 130; JCTs 100, 140, 135; busy 205 GPU-s over 2 GPUs × 155 s;
	// bounded slowdowns A 1, B 140/50 = 2.8, C 135/10 = 13.5 (runtime floored
	// at 10 s): user 1 mean 7.25, user 2 2.8; Jain = 10.05² / (2 × (7.25² + 2.8²)).
	want := Metrics{
		Policy: "fcfs", Jobs: 3, AvgWait: 220.0 / 3, MedianWait: 90, P95Wait: 130, AvgJCT: 125,
		Makespan: 155, Utilization: 205.0 / 310, JainFairness: 10.05 * 10.05 / (2 * (7.25*7.25 + 2.8*2.8)),
		OfferedLoad: 0.75, AvgSlowdown: (1 + 2.8 + 13.5) / 3,
	}
	for name, p := range map[string][2]float64{
		"avg wait": {m.AvgWait, want.AvgWait}, "median wait": {m.MedianWait, want.MedianWait},
		"p95 wait": {m.P95Wait, want.P95Wait}, "avg jct": {m.AvgJCT, want.AvgJCT},
		"makespan": {m.Makespan, want.Makespan}, "utilization": {m.Utilization, want.Utilization},
		"jain": {m.JainFairness, want.JainFairness}, "slowdown": {m.AvgSlowdown, want.AvgSlowdown},
	} {
		if math.Abs(p[0]-p[1]) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, p[0], p[1])
		}
	}
	if m.Jobs != 3 || m.Policy != "fcfs" || m.OfferedLoad != 0.75 || m.Preemptions != 0 {
		t.Errorf("metrics %+v", m)
	}
	if math.Abs(want.JainFairness-0.836079) > 1e-6 {
		t.Errorf("hand value of the index is off: %v", want.JainFairness)
	}
}

func TestSummarizeSkipsUnfinished(t *testing.T) {
	t.Parallel()
	r := threeJobsResult()
	r.Records[2].Done, r.Records[2].Unschedulable, r.Unschedulable = false, true, 1
	m := Summarize("x", r, 2, 0)
	if m.Jobs != 2 || m.Unschedulable != 1 || m.Makespan != 150 || m.MedianWait != 45 {
		t.Errorf("metrics %+v", m)
	}
	if empty := Summarize("x", &Result{}, 2, 0); empty.Jobs != 0 || empty.Utilization != 0 {
		t.Errorf("empty metrics %+v", empty)
	}
}

func TestJainIndex(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		xs   []float64
		want float64
	}{
		"equal":         {[]float64{3, 3, 3, 3}, 1},
		"one of four":   {[]float64{5, 0, 0, 0}, 0.25},
		"one of two":    {[]float64{1, 0}, 0.5},
		"1 2 3":         {[]float64{1, 2, 3}, 36.0 / 42},
		"1 to 10":       {[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 3025.0 / 3850},
		"all zero":      {[]float64{0, 0}, 1},
		"single":        {[]float64{7}, 1},
		"no values":     {nil, 0},
		"scale free x2": {[]float64{2, 4, 6}, 36.0 / 42},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := JainIndex(tc.xs); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("JainIndex(%v) = %v, want %v", tc.xs, got, tc.want)
			}
		})
	}
}

func TestQuantiles(t *testing.T) {
	t.Parallel()
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	if median(xs) != 10.5 || nearestRank(xs, 0.95) != 19 || nearestRank(xs[:1], 0.95) != 1 || median(nil) != 0 {
		t.Errorf("median %v p95 %v", median(xs), nearestRank(xs, 0.95))
	}
}
