package models

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestStopGrace: a job at its time limit and a checkpointing job being
// preempted get the job's own grace; every other stop the executor's
// default (0), unless the request names one.
func TestStopGrace(t *testing.T) {
	t.Parallel()
	ck := &Job{Checkpoint: true, StopGraceS: 90}
	plain := &Job{StopGraceS: 90}
	tests := map[string]struct {
		j    *Job
		r    StopRequest
		want time.Duration
	}{
		"checkpointing job preempted": {ck, StopRequest{Kind: StopPreempt}, 90 * time.Second},
		"checkpointing job canceled":  {ck, StopRequest{Kind: StopCancel}, 0},
		"plain job preempted":         {plain, StopRequest{Kind: StopPreempt}, 0},
		"plain job at its time limit": {plain, StopRequest{Kind: StopTimeLimit}, 90 * time.Second},
		"the request's own grace":     {ck, StopRequest{Kind: StopCancel, Grace: 5 * time.Second}, 5 * time.Second},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := stopGrace(tc.j, tc.r); got != tc.want {
				t.Errorf("stopGrace = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestDecide: the outcome of a run's end follows what was asked, strongest
// first, and only then how the run ended.
func TestDecide(t *testing.T) {
	t.Parallel()
	code := func(n int) *int { return &n }
	asked := func(k StopKind, reason string) *Job { return &Job{StopKind: k, StopReason: reason, MaxRetries: 1} }
	tests := map[string]struct {
		j    *Job
		e    RunEnd
		want outcome
	}{
		"exit 0":                          {&Job{}, RunEnd{ExitCode: code(0)}, outcome{JobCompleted, CauseCompleted, "exited with code 0", false}},
		"exit 3":                          {&Job{}, RunEnd{ExitCode: code(3)}, outcome{JobFailed, CauseFailed, "exited with code 3", false}},
		"killed":                          {&Job{}, RunEnd{ExitCode: code(137), Signal: "SIGKILL"}, outcome{JobFailed, CauseFailed, "killed by SIGKILL (exit code 137)", false}},
		"no exit code":                    {&Job{}, RunEnd{}, outcome{JobFailed, CauseFailed, "ended without an exit code", false}},
		"the executor's own words":        {&Job{}, RunEnd{Reason: "Ray: boom"}, outcome{JobFailed, CauseFailed, "Ray: boom", false}},
		"success in the executor's words": {&Job{}, RunEnd{ExitCode: code(0), Reason: "Ray: done"}, outcome{JobCompleted, CauseCompleted, "Ray: done", false}},
		"a note on an asked end":          {asked(StopCancel, "canceled by ana"), RunEnd{Stopped: true, Note: "unconfirmed"}, outcome{JobCanceled, CauseCanceled, "canceled by ana (unconfirmed)", false}},
		"refused start":                   {&Job{}, RunEnd{Refused: "could not start: no such user"}, outcome{JobFailed, CauseFailed, "could not start: no such user", false}},
		"lost, retries left":              {&Job{MaxRetries: 2}, RunEnd{Lost: true, Reason: "its node went down"}, outcome{JobQueued, CauseLost, "its node went down; retry 1 of 2", true}},
		"lost, no retries":                {&Job{}, RunEnd{Lost: true}, outcome{JobFailed, CauseLost, "lost on its node", false}},
		"cancel beats a clean exit":       {asked(StopCancel, "canceled by ana"), RunEnd{ExitCode: code(0)}, outcome{JobCanceled, CauseCanceled, "canceled by ana", false}},
		"cancel beats a lost run":         {asked(StopCancel, "canceled by ana"), RunEnd{Lost: true}, outcome{JobCanceled, CauseCanceled, "canceled by ana", false}},
		"preempted run stopped":           {asked(StopPreempt, "preempted for job 9"), RunEnd{Stopped: true, ExitCode: code(0)}, outcome{JobQueued, CausePreempted, "preempted for job 9", false}},
		"preempted run lost meanwhile":    {asked(StopPreempt, "preempted for job 9"), RunEnd{Lost: true}, outcome{JobQueued, CausePreempted, "preempted for job 9", false}},
		"preempted run ended by itself":   {asked(StopPreempt, "preempted for job 9"), RunEnd{ExitCode: code(0)}, outcome{JobCompleted, CauseCompleted, "exited with code 0", false}},
		"reclaimed":                       {asked(StopReclaim, "reclaimed: idle for 1h"), RunEnd{Stopped: true}, outcome{JobCanceled, CauseReclaimed, "reclaimed: idle for 1h", false}},
		"time limit":                      {asked(StopTimeLimit, "ran past its time limit"), RunEnd{Stopped: true, ExitCode: code(143)}, outcome{JobTimeout, CauseTimeLimit, "ran past its time limit", false}},
		"time limit beats a clean exit":   {asked(StopTimeLimit, "ran past its time limit"), RunEnd{ExitCode: code(0)}, outcome{JobTimeout, CauseTimeLimit, "ran past its time limit", false}},
		"lease released":                  {asked(StopRelease, "released by ana"), RunEnd{Stopped: true}, outcome{JobCompleted, CauseReleased, "released by ana", false}},
		"lease expired":                   {asked(StopExpire, "lease expired"), RunEnd{Stopped: true}, outcome{JobCompleted, CauseExpired, "lease expired", false}},
		"refused start, cancel asked":     {asked(StopCancel, "canceled by ana"), RunEnd{Refused: "bad"}, outcome{JobCanceled, CauseCanceled, "canceled by ana", false}},
		"refused start, preemption only":  {asked(StopPreempt, "p"), RunEnd{Refused: "bad"}, outcome{JobFailed, CauseFailed, "bad", false}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, decide(tc.j, tc.e), cmp.AllowUnexported(outcome{})); d != "" {
				t.Errorf("decide (-want +got):\n%s", d)
			}
		})
	}
}

// TestStopRank: a stronger request replaces a weaker one in flight; a
// person's cancel is the strongest.
func TestStopRank(t *testing.T) {
	t.Parallel()
	order := []StopKind{StopNone, StopPreempt, StopRelease, StopExpire, StopReclaim, StopTimeLimit, StopCancel}
	for i := 1; i < len(order); i++ {
		if stopRank[order[i]] <= stopRank[order[i-1]] {
			t.Errorf("%q does not outrank %q", order[i], order[i-1])
		}
	}
	if len(stopRank) != len(order) {
		t.Errorf("stopRank has %d kinds, the order %d", len(stopRank), len(order))
	}
}
