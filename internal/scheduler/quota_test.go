package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestQuotas checks user and team caps, with bookings counted and a job
// started inside its own booking not counted twice.
func TestQuotas(t *testing.T) {
	t.Parallel()
	hold := func(user int64, gpus int, gpuIDs ...int64) Booking {
		return Booking{ID: 50 + user, UserID: user, TeamID: 7, UserName: "ana", Hold: true, GPUCount: gpus, GPUIDs: gpuIDs,
			Start: at(-time.Minute), End: at(time.Hour)}
	}
	cases := map[string]struct {
		users    map[int64]Principal
		teams    map[int64]Principal
		running  []Job
		bookings []Booking
		pending  []Job
		starts   []int64
		waits    map[int64]string
	}{
		"user cap reached by running jobs": {
			users:   map[int64]Principal{1: {GPUCap: 8}},
			running: []Job{run(90, 1, time.Hour, time.Hour, gpuRange(10, 17))},
			pending: []Job{pend(1, 1, 1), pend(2, 2, 1)},
			starts:  []int64{2},
			waits:   map[int64]string{1: "user_quota: user quota reached 8/8 GPUs"},
		},
		"user cap: the job would go over": {
			users:   map[int64]Principal{1: {GPUCap: 8}},
			running: []Job{run(90, 1, time.Hour, time.Hour, gpuRange(10, 15))},
			pending: []Job{pend(1, 1, 4), pend(2, 1, 2)},
			starts:  []int64{2},
			waits:   map[int64]string{1: "user_quota: user quota: 6/8 GPUs in use; this job needs 4 more"},
		},
		"a job bigger than the cap": {
			users:   map[int64]Principal{1: {GPUCap: 4}},
			pending: []Job{pend(1, 1, 8)},
			waits:   map[int64]string{1: "user_quota: needs 8 GPUs; the user quota is 4 GPUs"},
		},
		"team cap counts every member": {
			teams:   map[int64]Principal{7: {GPUCap: 4}},
			running: []Job{run(90, 1, time.Hour, time.Hour, gpuRange(10, 12), team(7))},
			pending: []Job{pend(1, 2, 2, team(7)), pend(2, 2, 1, team(7)), pend(3, 3, 2, team(8))},
			starts:  []int64{2, 3},
			waits:   map[int64]string{1: "team_quota: team quota: 3/4 GPUs in use; this job needs 2 more"},
		},
		"an active hold counts against the cap": {
			users:    map[int64]Principal{1: {GPUCap: 5}},
			bookings: []Booking{hold(1, 3)},
			running:  []Job{run(90, 1, time.Hour, time.Hour, ids(27))},
			// The hold counts the owner's running GPU 27 toward itself: use = 1 + (3 - 1) = 3;
			// the job would take the 2 held GPUs still free and 3 more.
			pending: []Job{pend(1, 1, 5), pend(2, 1, 1, model("A100"))},
			waits: map[int64]string{1: "user_quota: user quota: 3/5 GPUs in use; this job needs 3 more",
				2: `no_matching_gpu: no GPU in the cluster matches model "A100"`},
		},
		"a job inside its own hold adds nothing": {
			users:    map[int64]Principal{1: {GPUCap: 4}},
			bookings: []Booking{hold(1, 3)},
			pending:  []Job{pend(1, 1, 3), pend(2, 1, 1), pend(3, 1, 1)},
			starts:   []int64{1, 2},
			waits:    map[int64]string{3: "user_quota: user quota reached 4/4 GPUs"},
		},
		"a running job inside its own hold is not counted twice": {
			users:    map[int64]Principal{1: {GPUCap: 4}},
			bookings: []Booking{hold(1, 2, 10, 11)},
			running:  []Job{run(90, 1, time.Minute, time.Hour, ids(10, 11))},
			pending:  []Job{pend(1, 1, 2), pend(2, 1, 1)},
			starts:   []int64{1},
			waits:    map[int64]string{2: "user_quota: user quota reached 4/4 GPUs"},
		},
		"a hold counts against the owner's team": {
			teams:    map[int64]Principal{7: {GPUCap: 4}},
			bookings: []Booking{hold(1, 4)},
			pending:  []Job{pend(1, 2, 1, team(7))},
			waits:    map[int64]string{1: "team_quota: team quota reached 4/4 GPUs"},
		},
		"quota-blocked jobs never block the jobs behind them, even in strict order": {
			users:   map[int64]Principal{1: {GPUCap: 1}},
			pending: []Job{pend(1, 1, 2), pend(2, 2, 8), pend(3, 2, 8)},
			starts:  []int64{2, 3},
			waits:   map[int64]string{1: "user_quota: needs 2 GPUs; the user quota is 1 GPU"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mk(2, 8)
			s.Users, s.Teams, s.Running, s.Bookings, s.Pending = tc.users, tc.teams, tc.running, tc.bookings, tc.pending
			pl := Schedule(s, cfg("fcfs"))
			var started []int64
			for _, st := range pl.Starts {
				started = append(started, st.JobID)
			}
			if d := cmp.Diff(tc.starts, started); d != "" {
				t.Errorf("starts (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.waits, codesOf(pl)); d != "" {
				t.Errorf("explanations (-want +got):\n%s", d)
			}
		})
	}
}
