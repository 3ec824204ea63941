package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPreemptedVictimQueuesBehindHead: the pass after a preemption, with
// the victim back in the queue (its service kept) and its GPU free, starts
// the head, not the victim.
func TestPreemptedVictimQueuesBehindHead(t *testing.T) {
	t.Parallel()
	s := mk(1, 1)
	s.Running = []Job{run(100, 9, 2*time.Hour, time.Hour, ids(10), preemptible(), checkpoint())}
	s.Pending = []Job{pend(1, 1, 1, prio(PriorityHigh))}
	c := lasCfg("las-backfill")
	pl := Schedule(s, c)
	if len(pl.Preemptions) != 1 || pl.Preemptions[0].JobID != 100 {
		t.Fatalf("preemptions %+v, want job 100", pl.Preemptions)
	}
	victim := s.Running[0]
	victim.AttainedGPUSeconds = (2 * time.Hour).Seconds()
	victim.StartedAt, victim.GPUs, victim.PreemptedAt = time.Time{}, nil, t0
	s.Running, s.Pending = nil, []Job{victim, pend(1, 1, 1, prio(PriorityHigh))}
	s.Now = t0.Add(time.Minute)
	pl = Schedule(s, c)
	if d := cmp.Diff(map[int64][]int64{1: {10}}, startsOf(pl)); d != "" {
		t.Errorf("starts after the preemption (-want +got):\n%s", d)
	}
}

// TestDemotionWords: a head stopping a demoted checkpointing job of its
// own priority does not call it lower-priority.
func TestDemotionWords(t *testing.T) {
	t.Parallel()
	s := mk(1, 1)
	s.Running = []Job{run(100, 9, 2*time.Hour, 10*time.Hour, ids(10), checkpoint())}
	s.Pending = []Job{pend(1, 1, 1)}
	pl := Schedule(s, lasCfg("las-backfill"))
	want := "stopping 1 checkpointing job (100) to free GPUs for it; starts once they stop"
	if got := whyOf(pl)[1].Reason; got != want {
		t.Errorf("reason %q, want %q", got, want)
	}
}
