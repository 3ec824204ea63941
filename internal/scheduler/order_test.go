package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestQueueOrder checks each policy's order on a cluster whose only GPU is
// busy, so that every job waits and Plan.Pending is the queue.
func TestQueueOrder(t *testing.T) {
	t.Parallel()
	busy := mk(1, 1)
	busy.Running = []Job{run(100, 9, time.Hour, 10*time.Hour, ids(10))}
	cases := map[string]struct {
		pending []Job
		users   map[int64]Principal
		teams   map[int64]Principal
		c       Config
		want    []int64
	}{
		"fcfs: submission time, then ID": {
			pending: []Job{pend(3, 1, 1, prio(4)), pend(1, 1, 1, prio(1)), pend(2, 1, 1, ago(time.Hour)),
				pend(4, 1, 1, ago(time.Hour))},
			c:    cfg("fcfs"),
			want: []int64{2, 4, 1, 3},
		},
		"priority: higher first, ties FCFS": {
			pending: []Job{pend(1, 1, 1, prio(1)), pend(2, 1, 1, prio(3)), pend(3, 1, 1, prio(3)), pend(4, 1, 1, prio(4))},
			c:       cfg("priority", func(c *Config) { c.AgingPerHour = 0 }),
			want:    []int64{4, 2, 3, 1},
		},
		"priority: aging lets an old low job pass a new high one": {
			// 1 + 0.25×10h = 3.5 > 3 + 0.25×1h = 3.25
			pending: []Job{pend(1, 1, 1, prio(1), ago(10*time.Hour)), pend(2, 1, 1, prio(3), ago(time.Hour))},
			c:       cfg("priority"),
			want:    []int64{1, 2},
		},
		"sjf: shortest estimate first, unknown counts as the default": {
			pending: []Job{pend(1, 1, 1, est(5*time.Hour)), pend(2, 1, 1, est(0)), pend(3, 1, 1, est(time.Minute)),
				pend(4, 1, 1, est(4*time.Hour))},
			c:    cfg("sjf"),
			want: []int64{3, 2, 4, 1}, // 2 (default 4h) ties 4 (4h): FCFS
		},
		"fairshare: the user under their share first": {
			pending: []Job{pend(1, 1, 1), pend(2, 2, 1), pend(3, 3, 1)},
			users:   map[int64]Principal{1: {Usage: 900}, 2: {Usage: 100}, 3: {Usage: 0, Share: 1}},
			c:       cfg("fairshare"),
			want:    []int64{3, 2, 1},
		},
		"fairshare: a bigger share offsets usage": {
			pending: []Job{pend(1, 1, 1), pend(2, 2, 1)},
			users:   map[int64]Principal{1: {Usage: 500, Share: 4}, 2: {Usage: 500, Share: 1}},
			c:       cfg("fairshare"),
			want:    []int64{1, 2},
		},
		"fairshare: the team's usage counts too": {
			pending: []Job{pend(1, 1, 1, team(10)), pend(2, 2, 1, team(20))},
			users:   map[int64]Principal{1: {Usage: 100}, 2: {Usage: 100}},
			teams:   map[int64]Principal{10: {Usage: 1000}, 20: {Usage: 10}},
			c:       cfg("fairshare"),
			want:    []int64{2, 1},
		},
		"fairshare: priority weighs, then size": {
			pending: []Job{pend(1, 1, 1), pend(2, 1, 1, prio(3)), pend(3, 1, 8)},
			users:   map[int64]Principal{1: {}},
			c:       cfg("fairshare", func(c *Config) { c.AgingPerHour = 0 }),
			want:    []int64{2, 1, 3},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := busy
			s.GPUs = mk(1, 8).GPUs // room for 8-GPU jobs on paper; all but GPU 10 down below
			for i := 1; i < 8; i++ {
				s.GPUs[i].Healthy = false
			}
			s.Pending, s.Users, s.Teams = tc.pending, tc.users, tc.teams
			got := queueOf(Schedule(s, tc.c))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("queue (-want +got):\n%s", d)
			}
		})
	}
}
