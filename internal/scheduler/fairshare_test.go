package scheduler

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDecayedUsage checks the closed form against a numeric integral and
// the edge cases.
func TestDecayedUsage(t *testing.T) {
	t.Parallel()
	week := 7 * 24 * time.Hour
	numeric := func(gpus int, start, end, now time.Time, h time.Duration) float64 {
		const steps = 200000
		dt := end.Sub(start).Seconds() / steps
		sum := 0.0
		for i := range steps {
			mid := start.Add(time.Duration((float64(i) + 0.5) * dt * float64(time.Second)))
			sum += float64(gpus) * math.Exp2(-now.Sub(mid).Seconds()/h.Seconds()) * dt
		}
		return sum
	}
	cases := map[string]struct {
		gpus            int
		start, end, now time.Time
		halfLife        time.Duration
		want            float64 // NaN: compare with the numeric integral
	}{
		"a day, a week ago":       {8, at(-8 * 24 * time.Hour), at(-7 * 24 * time.Hour), t0, week, math.NaN()},
		"still running":           {2, at(-3 * time.Hour), t0, t0, week, math.NaN()},
		"short half-life":         {1, at(-10 * time.Hour), at(-time.Hour), t0, time.Hour, math.NaN()},
		"a second, just now":      {1, at(-time.Second), t0, t0, week, math.NaN()},
		"end after now is cut":    {1, at(-time.Hour), at(time.Hour), t0, 0, 3600},
		"no decay":                {4, at(-2 * time.Hour), at(-time.Hour), t0, 0, 4 * 3600},
		"empty interval":          {4, t0, t0, t0, week, 0},
		"reversed interval":       {4, t0, at(-time.Hour), t0, week, 0},
		"no GPUs":                 {0, at(-time.Hour), t0, t0, week, 0},
		"one half-life ago, tiny": {1, at(-week - time.Millisecond), at(-week), t0, week, 0.0005},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := DecayedUsage(tc.gpus, tc.start, tc.end, tc.now, tc.halfLife)
			want := tc.want
			if math.IsNaN(want) {
				want = numeric(tc.gpus, tc.start, tc.end, tc.now, tc.halfLife)
			}
			if math.Abs(got-want) > 1e-6*math.Max(1, want) {
				t.Errorf("DecayedUsage = %v, want %v", got, want)
			}
		})
	}
}

// TestFairShareScore checks the multifactor score against a hand
// computation.
func TestFairShareScore(t *testing.T) {
	t.Parallel()
	s := mk(2, 8)
	s.Users = map[int64]Principal{1: {Usage: 300, Share: 1}, 2: {Usage: 100, Share: 3}}
	s.Teams = map[int64]Principal{7: {Usage: 50}, 8: {Usage: 50}}
	c := DefaultConfig() // weights 10000, 1000, 5000, 100; max age 7 days; aging 0.25/h
	// Job of user 1 in team 7, priority 3, 2 GPUs, waited 24h.
	s.Pending = []Job{pend(1, 1, 2, prio(3), team(7), ago(24*time.Hour))}
	p := newPass(&s, c)
	got := p.fairShare(&s)(&s.Pending[0])
	ffs := math.Exp2(-(300.0/400)/(1.0/4)) * math.Exp2(-(50.0/100)/(1.0/2))
	age := 24.0 / (7 * 24)
	pr := math.Min(2.0/3+0.25*24/3, 1)
	size := 1 - 2.0/8
	want := 10000*ffs + 1000*age + 5000*pr + 100*size
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("score = %v, want %v", got, want)
	}
	pl := Schedule(mk(1, 0), c) // no jobs, no GPUs: an empty plan
	if d := cmp.Diff(Plan{Pending: []Explanation{}}, pl); d != "" {
		t.Errorf("empty plan (-want +got):\n%s", d)
	}
}
