package scheduler

import "testing"

// BenchmarkPassLarge compares the default (las-backfill) with the former
// default (fairshare-backfill) and gittins on 10,000 pending jobs and
// 1,024 GPUs, run one after another so that a busy machine slows them alike:
//
//	go test -run '^$' -bench BenchmarkPassLarge ./internal/scheduler
func BenchmarkPassLarge(b *testing.B) {
	s := genSnapshot(genOpts{nodes: 128, perNode: 8, busy: 0.5, pending: 10000, users: 150, teams: 10, bookings: true, seed: 2})
	for _, name := range []string{"fairshare-backfill", "default", "gittins-backfill"} {
		c, _ := Preset(name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Schedule(s, c)
			}
		})
	}
}
