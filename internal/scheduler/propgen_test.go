package scheduler

import (
	"fmt"
	"time"

	"pgregory.net/rapid"
)

// drawCase draws a small random snapshot and configuration: up to 4 nodes
// of up to 8 GPUs of two models, some unhealthy, drained, foreign or on a
// node that is down or drained; running jobs (some overrun, some
// preemptible); bookings and holds, active and future, of any shape;
// pending jobs of every shape; caps on users and teams; any policy.
func drawCase(t *rapid.T) (Snapshot, Config) {
	s := Snapshot{Now: t0, Users: map[int64]Principal{}, Teams: map[int64]Principal{}}
	minutes := func(label string, lo, hi int) time.Duration {
		return time.Duration(rapid.IntRange(lo, hi).Draw(t, label)) * time.Minute
	}
	var all []int64
	for n := range int64(rapid.IntRange(1, 4).Draw(t, "nodes")) {
		n++
		s.Nodes = append(s.Nodes, Node{ID: n, Up: rapid.IntRange(0, 9).Draw(t, "up") > 0,
			Drained: rapid.IntRange(0, 9).Draw(t, "ndrain") == 0})
		a100 := rapid.Bool().Draw(t, "a100")
		for i := range rapid.IntRange(1, 8).Draw(t, "per") {
			g := GPU{ID: n*100 + int64(i), NodeID: n, Index: i, Model: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559,
				NVLinkGroup: rapid.IntRange(-1, 1).Draw(t, "nvl"), Healthy: rapid.IntRange(0, 9).Draw(t, "healthy") > 0,
				Drained: rapid.IntRange(0, 19).Draw(t, "gdrain") == 0, Foreign: rapid.IntRange(0, 19).Draw(t, "foreign") == 0}
			if a100 {
				g.Model, g.MemoryMiB = "NVIDIA A100-SXM4-40GB", 40960
			}
			s.GPUs = append(s.GPUs, g)
			all = append(all, g.ID)
		}
	}
	id := int64(0)
	held := map[int64]bool{}
	for range rapid.IntRange(0, 6).Draw(t, "running") {
		id++
		var gs []int64
		for range rapid.IntRange(1, 4).Draw(t, "rgpus") {
			if g := rapid.SampledFrom(all).Draw(t, "rgpu"); !held[g] {
				held[g] = true
				gs = append(gs, g)
			}
		}
		if len(gs) == 0 {
			continue
		}
		u := rapid.Int64Range(1, 4).Draw(t, "ruser")
		ran := minutes("ran", 0, 600)
		s.Running = append(s.Running, Job{ID: 1000 + id, UserID: u, TeamID: u % 3, GPUCount: len(gs), GPUs: gs,
			Priority: rapid.IntRange(1, 4).Draw(t, "rprio"), Preemptible: rapid.Bool().Draw(t, "preemptible"),
			StartedAt: t0.Add(-ran), SubmittedAt: t0.Add(-ran - time.Hour), EstimatedDuration: minutes("rest", 0, 720),
			Checkpoint: rapid.Bool().Draw(t, "rckpt"), AttainedGPUSeconds: float64(rapid.IntRange(0, 50).Draw(t, "rattained")) * 3600,
			Stopping: rapid.IntRange(0, 4).Draw(t, "rstopping") == 0})
	}
	for b := range rapid.IntRange(0, 3).Draw(t, "bookings") {
		u := rapid.Int64Range(1, 4).Draw(t, "buser")
		start := t0.Add(minutes("bstart", -120, 240))
		bk := Booking{ID: int64(b + 1), UserID: u, TeamID: u % 3, UserName: fmt.Sprint("user", u), Hold: rapid.Bool().Draw(t, "hold"),
			GPUCount: rapid.IntRange(1, 4).Draw(t, "bgpus"), Start: start, End: start.Add(minutes("blen", 10, 300))}
		switch rapid.IntRange(0, 3).Draw(t, "bkind") {
		case 1:
			bk.GPUModel = "a100"
		case 2:
			bk.NodeID = s.Nodes[rapid.IntRange(0, len(s.Nodes)-1).Draw(t, "bnode")].ID
		case 3:
			bk.GPUIDs = nil
			for range bk.GPUCount {
				bk.GPUIDs = append(bk.GPUIDs, rapid.SampledFrom(all).Draw(t, "bgpu"))
			}
		}
		s.Bookings = append(s.Bookings, bk)
	}
	for range rapid.IntRange(0, 12).Draw(t, "pending") {
		id++
		u := rapid.Int64Range(1, 4).Draw(t, "puser")
		j := Job{ID: id, UserID: u, TeamID: u % 3, GPUCount: rapid.SampledFrom([]int{1, 1, 1, 2, 2, 3, 4, 8, 9}).Draw(t, "pgpus"),
			Priority: rapid.IntRange(1, 4).Draw(t, "pprio"), AllowMultiNode: rapid.IntRange(0, 3).Draw(t, "multi") == 0,
			SubmittedAt: t0.Add(-minutes("wait", 0, 48*60)), EstimatedDuration: minutes("pest", 0, 480)}
		j.AttainedGPUSeconds = float64(rapid.SampledFrom([]int{0, 0, 0, 2, 20, 100}).Draw(t, "pattained")) * 3600
		if j.AttainedGPUSeconds > 0 {
			j.PreemptedAt = j.SubmittedAt.Add(minutes("preempted", 0, 60))
		}
		if rapid.Bool().Draw(t, "learned") {
			j.Learned = RuntimeDist{LogMean: float64(rapid.IntRange(4, 11).Draw(t, "lmu")), LogStd: 1, N: 5}
		}
		switch rapid.IntRange(0, 5).Draw(t, "pfilter") {
		case 1:
			j.GPUModel = "A100"
		case 2:
			j.MinMemoryMiB = 60000
		}
		s.Pending = append(s.Pending, j)
	}
	for u := int64(1); u <= 4; u++ {
		s.Users[u] = Principal{Share: float64(rapid.IntRange(0, 3).Draw(t, "share")),
			GPUCap: rapid.SampledFrom([]int{0, 0, 2, 4, 8}).Draw(t, "ucap"), Usage: float64(rapid.IntRange(0, 1000).Draw(t, "usage"))}
	}
	for tm := int64(1); tm <= 2; tm++ {
		s.Teams[tm] = Principal{GPUCap: rapid.SampledFrom([]int{0, 0, 4, 8}).Draw(t, "tcap"), Usage: float64(rapid.IntRange(0, 1000).Draw(t, "tusage"))}
	}
	c := DefaultConfig()
	c.Policy = rapid.SampledFrom([]string{PolicyFCFS, PolicyPriority, PolicyFairShare, PolicySJF, PolicyLAS, PolicyGittins}).Draw(t, "policy")
	c.FairShare.Entitled = rapid.Bool().Draw(t, "entitled")
	c.Estimates = rapid.SampledFrom([]string{"", EstimatesUser, EstimatesLearned}).Draw(t, "estimates")
	c.LAS.CheckpointPreemption = rapid.Bool().Draw(t, "ckptpreempt")
	c.LAS.PreemptCooldown = Duration(minutes("cooldown", 0, 120))
	c.LAS.StarvationLimit = Duration(minutes("starve", 0, 24*60))
	c.LAS.MaxLostShare = rapid.SampledFrom([]float64{0, 0.05, 0.5}).Draw(t, "lostcap")
	s.Lost = PreemptionLoss{LostGPUSeconds: float64(rapid.IntRange(0, 100).Draw(t, "lost")), HeldGPUSeconds: 1000,
		CommittedGPUSeconds: float64(rapid.IntRange(0, 30).Draw(t, "committed"))}
	c.LAS.LearnedOverrun = rapid.Bool().Draw(t, "overrun")
	c.LAS.DemoteSlowdownLimit = rapid.SampledFrom([]float64{0, 1.5, 2, 4}).Draw(t, "slowdownlimit")
	c.Backfill, c.Preemption = rapid.Bool().Draw(t, "backfill"), rapid.Bool().Draw(t, "preemption")
	c.AgingPerHour = rapid.SampledFrom([]float64{0, 0.25, 2}).Draw(t, "aging")
	c.MinRuntime = Duration(minutes("minrun", 0, 30))
	c.DefaultDuration = Duration(rapid.SampledFrom([]time.Duration{time.Hour, 4 * time.Hour}).Draw(t, "defdur"))
	return s, c
}

// shuffled returns s with every slice in a random order.
func shuffled(t *rapid.T, s Snapshot) Snapshot {
	s.Nodes = rapid.Permutation(s.Nodes).Draw(t, "pnodes")
	s.GPUs = rapid.Permutation(s.GPUs).Draw(t, "pgpus")
	s.Running = rapid.Permutation(s.Running).Draw(t, "prunning")
	for i := range s.Running {
		s.Running[i].GPUs = rapid.Permutation(s.Running[i].GPUs).Draw(t, "prgpus")
	}
	s.Pending = rapid.Permutation(s.Pending).Draw(t, "ppending")
	s.Bookings = rapid.Permutation(s.Bookings).Draw(t, "pbookings")
	for i := range s.Bookings {
		s.Bookings[i].GPUIDs = rapid.Permutation(s.Bookings[i].GPUIDs).Draw(t, "pbgpus")
	}
	return s
}
