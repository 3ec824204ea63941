package sim

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

func signalWorkload(n int) *Workload {
	w := &Workload{Cluster: Cluster{Nodes: 1, GPUsPerNode: 2, Model: "H100"}}
	for i := range n {
		w.Jobs = append(w.Jobs, Job{ID: int64(i + 1), User: int64(i%3 + 1), Submit: time.Duration(i) * 10 * time.Minute,
			Runtime: time.Hour, GPUs: 1 + i%2, Priority: 2})
	}
	return w
}

// Signals honour recall and precision, come Lead before their job (not
// before 0), are sorted, and are the same for the same seed.
func TestMakeSignalsProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := signalWorkload(rapid.IntRange(1, 300).Draw(t, "jobs"))
		o := SignalOptions{Recall: rapid.Float64Range(0, 1).Draw(t, "recall"), Precision: rapid.Float64Range(0.05, 1).Draw(t, "precision"),
			Lead: time.Duration(rapid.IntRange(0, 3600).Draw(t, "lead")) * time.Second, TTL: 15 * time.Minute, Seed: rapid.Uint64().Draw(t, "seed")}
		s, err := MakeSignals(w, o)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := MakeSignals(w, o)
		if len(again.List) != len(s.List) {
			t.Fatal("not deterministic")
		}
		right := 0
		for i, sg := range s.List {
			if i > 0 && sg.At < s.List[i-1].At {
				t.Fatalf("not sorted at %d", i)
			}
			if again.List[i] != sg {
				t.Fatal("not deterministic")
			}
			if sg.Job != 0 {
				right++
				j := w.Jobs[sg.Job-1]
				if sg.At != max(j.Submit-o.Lead, 0) || sg.User != j.User || sg.GPUs != j.GPUs {
					t.Fatalf("signal %+v for job %+v", sg, j)
				}
			}
		}
		if right > 0 {
			if p := float64(right) / float64(len(s.List)); p < o.Precision-0.5/float64(right)-0.01 || p > o.Precision+0.5/float64(right)+0.01 {
				t.Fatalf("precision %.3f, want %.3f (%d right of %d)", p, o.Precision, right, len(s.List))
			}
		}
		if o.Recall == 0 && len(s.List) != 0 {
			t.Fatal("signals with recall 0")
		}
	})
}

// A signalled job, arriving while another user's job waits for GPUs,
// starts at once on the GPUs its hold kept free; without holds it waits.
func TestHoldsReplay(t *testing.T) {
	t.Parallel()
	w := &Workload{Cluster: Cluster{Nodes: 1, GPUsPerNode: 2, Model: "H100"}, Jobs: []Job{
		{ID: 1, User: 1, Submit: 0, Runtime: 10 * time.Minute, GPUs: 2, Priority: 2},
		{ID: 2, User: 2, Submit: time.Minute, Runtime: time.Hour, GPUs: 2, Priority: 2},
		{ID: 3, User: 3, Submit: 12 * time.Minute, Runtime: time.Hour, GPUs: 2, Priority: 2},
	}}
	sig := &Signals{TTL: 15 * time.Minute, List: []Signal{{At: 0, User: 1, GPUs: 1}, // a false alarm, used by a job already coming
		{At: 5 * time.Minute, User: 3, GPUs: 2, Job: 3}}}
	ps, err := Policies([]string{"fcfs"})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := CompareHolds(w, ps, sig, 2)
	if err != nil {
		t.Fatal(err)
	}
	off, on := rows[0], rows[1]
	if off.Holds || !on.Holds {
		t.Fatalf("rows %+v", rows)
	}
	// Off: job 2 takes the GPUs at 10m, job 3 waits until 70m (58m).
	// On: job 3's hold (from 5m) keeps the GPUs freed at 10m; it starts at
	// 12m, job 2 waits until 72m. Job 1's false alarm is consumed by job 1.
	if off.SignalledMedianS != 58*60 || on.SignalledMedianS != 0 {
		t.Fatalf("signalled waits off %v on %v", off.SignalledMedianS, on.SignalledMedianS)
	}
	if on.Consumed != 2 || on.Expired != 0 {
		t.Fatalf("holds used/expired %d/%d", on.Consumed, on.Expired)
	}
	// Held idle: job 3's hold, 2 GPUs × 7m (5m→12m); the false alarm was used at 0.
	if want := 2 * 7.0 / 60; on.HeldIdleGPUHours < want-1e-9 || on.HeldIdleGPUHours > want+1e-9 {
		t.Fatalf("held idle %.4f GPU-h, want %.4f", on.HeldIdleGPUHours, want)
	}
}
