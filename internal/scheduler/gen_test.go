package scheduler

import (
	"math/rand/v2"
	"time"
)

// t0 is the Now of generated and hand-written snapshots: Monday 2 June
// 2025, 10:00 UTC.
var t0 = time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)

// genOpts sizes a generated snapshot.
type genOpts struct {
	nodes, perNode int
	busy           float64 // share of GPUs held by running jobs
	pending        int
	users, teams   int
	bookings       bool // an active hold and a future booking
	seed           uint64
}

// genSnapshot builds a realistic snapshot from a seed: H100 nodes with one
// NVLink domain each, a few unhealthy GPUs, running jobs of 1/2/4/8 GPUs
// filling about busy of the cluster, pending jobs of mixed sizes,
// priorities, estimates and ages, users with shares, caps and usage in
// teams, and optionally a hold and a future booking.
func genSnapshot(o genOpts) Snapshot {
	r := rand.New(rand.NewPCG(o.seed, 0x5eed))
	s := Snapshot{Now: t0, Users: map[int64]Principal{}, Teams: map[int64]Principal{}}
	id := int64(0)
	next := func() int64 { id++; return id }
	for n := range o.nodes {
		nid := int64(1000 + n)
		s.Nodes = append(s.Nodes, Node{ID: nid, Name: "gpu-" + string(rune('a'+n%26)), Up: true})
		for i := range o.perNode {
			s.GPUs = append(s.GPUs, GPU{ID: nid*100 + int64(i), NodeID: nid, Index: i, Model: "NVIDIA H100 80GB HBM3",
				MemoryMiB: 81559, NVLinkGroup: 0, Healthy: r.IntN(64) != 0})
		}
	}
	sizes := []int{1, 1, 1, 1, 2, 2, 2, 4, 4, 8}
	team := func(u int64) int64 { return 1 + u%int64(max(o.teams, 1)) }
	for u := int64(1); u <= int64(o.users); u++ {
		s.Users[u] = Principal{Name: "user" + string(rune('a'+u%26)), Share: float64(1 + r.IntN(3)),
			GPUCap: []int{0, 8, 16}[r.IntN(3)], Usage: r.Float64() * 1e6}
	}
	for t := int64(1); t <= int64(o.teams); t++ {
		s.Teams[t] = Principal{Name: "team" + string(rune('a'+t)), Share: 1, GPUCap: []int{0, 0, 48}[r.IntN(3)] * max(1, o.nodes/2),
			Usage: r.Float64() * 3e6}
	}
	target := int(o.busy * float64(o.nodes*o.perNode))
	held := 0
	for n := 0; n < o.nodes && held < target; n++ {
		i := 0
		for i < o.perNode && held < target {
			k := min(sizes[r.IntN(len(sizes))], o.perNode-i)
			u := 1 + r.Int64N(int64(o.users))
			ran := time.Duration(r.IntN(600)) * time.Minute
			j := Job{ID: next(), UserID: u, TeamID: team(u), GPUCount: k, Priority: 1 + r.IntN(4),
				Preemptible: r.IntN(3) == 0, StartedAt: t0.Add(-ran),
				EstimatedDuration: ran + time.Duration(1+r.IntN(12*60))*time.Minute}
			j.SubmittedAt = j.StartedAt.Add(-time.Hour)
			for g := range k {
				j.GPUs = append(j.GPUs, int64(1000+n)*100+int64(i+g))
			}
			s.Running = append(s.Running, j)
			i, held = i+k, held+k
		}
	}
	for range o.pending {
		u := 1 + r.Int64N(int64(o.users))
		j := Job{ID: next(), UserID: u, TeamID: team(u), GPUCount: sizes[r.IntN(len(sizes))],
			Priority: 1 + r.IntN(4), Preemptible: r.IntN(2) == 0,
			SubmittedAt: t0.Add(-time.Duration(r.IntN(48*60)) * time.Minute)}
		if r.IntN(10) < 7 {
			j.EstimatedDuration = time.Duration(10+r.IntN(24*60)) * time.Minute
		}
		if r.IntN(10) == 0 {
			j.GPUModel = "H100"
		}
		s.Pending = append(s.Pending, j)
	}
	if o.bookings {
		s.Bookings = append(s.Bookings,
			Booking{ID: 1, UserID: 1, TeamID: team(1), UserName: "ana", Hold: true, GPUCount: 1,
				Start: t0.Add(-5 * time.Minute), End: t0.Add(25 * time.Minute)},
			Booking{ID: 2, UserID: 2, TeamID: team(2), UserName: "bo", GPUCount: 4,
				Start: t0.Add(2 * time.Hour), End: t0.Add(5 * time.Hour)})
	}
	return s
}
