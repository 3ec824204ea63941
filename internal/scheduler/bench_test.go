package scheduler

import "testing"

// BenchmarkPass times one Schedule call on DefaultConfig (fair share,
// backfill, preemption) for the team's cluster and for one at scale:
//
//	go test -run '^$' -bench BenchmarkPass ./internal/scheduler
func BenchmarkPass(b *testing.B) {
	cases := []struct {
		name string
		o    genOpts
	}{
		{"1000jobs_16gpus", genOpts{nodes: 2, perNode: 8, busy: 0.5, pending: 1000, users: 15, teams: 3, bookings: true, seed: 1}},
		{"10000jobs_1024gpus", genOpts{nodes: 128, perNode: 8, busy: 0.5, pending: 10000, users: 150, teams: 10, bookings: true, seed: 2}},
	}
	for _, c := range cases {
		s := genSnapshot(c.o)
		cfg := DefaultConfig()
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Schedule(s, cfg)
			}
		})
	}
}

// BenchmarkPresets times one Schedule call of every preset on the team's
// cluster with 1,000 pending jobs, to compare the policies' cost:
//
//	go test -run '^$' -bench BenchmarkPresets ./internal/scheduler
func BenchmarkPresets(b *testing.B) {
	s := genSnapshot(genOpts{nodes: 2, perNode: 8, busy: 0.5, pending: 1000, users: 15, teams: 3, bookings: true, seed: 1})
	for _, name := range PresetNames() {
		c, _ := Preset(name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Schedule(s, c)
			}
		})
	}
}
