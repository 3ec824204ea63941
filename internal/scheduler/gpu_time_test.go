package scheduler

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// TestGPUTime checks the window's cuts, the still-held case and the decay.
func TestGPUTime(t *testing.T) {
	t.Parallel()
	h, week := time.Hour, 7*24*time.Hour
	cases := map[string]struct {
		held Held
		w    UsageWindow
		want float64
	}{
		"plain, whole":           {Held{GPUs: 4, Start: at(-3 * h), End: at(-2 * h)}, UsageWindow{Now: t0}, 4 * 3600},
		"still held runs to now": {Held{GPUs: 2, Start: at(-90 * time.Minute)}, UsageWindow{Now: t0}, 2 * 5400},
		"end after now is cut":   {Held{GPUs: 1, Start: at(-h), End: at(h)}, UsageWindow{Now: t0}, 3600},
		"cut by From":            {Held{GPUs: 3, Start: at(-5 * h), End: at(-h)}, UsageWindow{From: at(-2 * h), Now: t0}, 3 * 3600},
		"cut by To":              {Held{GPUs: 3, Start: at(-5 * h), End: at(-h)}, UsageWindow{To: at(-4 * h), Now: t0}, 3 * 3600},
		"cut both sides":         {Held{GPUs: 1, Start: at(-5 * h)}, UsageWindow{From: at(-3 * h), To: at(-2 * h), Now: t0}, 3600},
		"outside the window":     {Held{GPUs: 8, Start: at(-5 * h), End: at(-4 * h)}, UsageWindow{From: at(-3 * h), Now: t0}, 0},
		"started after now":      {Held{GPUs: 8, Start: at(h)}, UsageWindow{Now: t0}, 0},
		"decayed":                {Held{GPUs: 8, Start: at(-8 * 24 * h), End: at(-week)}, UsageWindow{Now: t0, HalfLife: week}, DecayedUsage(8, at(-8*24*h), at(-week), t0, week)},
		"two 1g slices of 7":     {Held{GPUs: 2, Fraction: 1.0 / 7, Start: at(-7 * h), End: t0}, UsageWindow{Now: t0}, 2 * 3600},
		"a 3g slice, decayed": {Held{GPUs: 1, Fraction: 3.0 / 7, Start: at(-8 * 24 * h), End: at(-week)}, UsageWindow{Now: t0, HalfLife: week},
			3.0 / 7 * DecayedUsage(1, at(-8*24*h), at(-week), t0, week)},
		"decayed and cut": {Held{GPUs: 2, Start: at(-3 * week)}, UsageWindow{From: at(-week), Now: t0, HalfLife: week},
			2 * week.Seconds() / math.Ln2 * 0.5},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := GPUTime(tc.held, tc.w); math.Abs(got-tc.want) > 1e-6*math.Max(1, tc.want) {
				t.Errorf("GPUTime = %v, want %v", got, tc.want)
			}
		})
	}
}

// A job run twice is charged its two runs, not the wait between them; a
// team is charged its members' time; principals not listed are not.
func TestChargeUsage(t *testing.T) {
	t.Parallel()
	h := time.Hour
	s := Snapshot{Now: t0,
		Users: map[int64]Principal{1: {Name: "ana"}, 2: {Name: "bob", Usage: 10}},
		Teams: map[int64]Principal{7: {Name: "vision"}}}
	held := []Held{
		{UserID: 1, TeamID: 7, GPUs: 4, Start: at(-12 * h), End: at(-11 * h)}, // first attempt
		{UserID: 1, TeamID: 7, GPUs: 4, Start: at(-h), End: t0},               // second, ten hours later
		{UserID: 2, GPUs: 1, Start: at(-30 * time.Minute)},                    // still held, no team
		{UserID: 2, TeamID: 9, GPUs: 2, Start: at(-h), End: t0},               // team 9 is not listed
		{UserID: 3, TeamID: 7, GPUs: 1, Start: at(-h), End: t0},               // user 3 is not listed
	}
	ChargeUsage(&s, held, UsageWindow{Now: t0})
	got := map[string]float64{}
	for _, p := range s.Users {
		got[p.Name] = p.Usage
	}
	for _, p := range s.Teams {
		got[p.Name] = p.Usage
	}
	want := map[string]float64{"ana": 8 * 3600, "bob": 10 + 1800 + 2*3600, "vision": 8*3600 + 3600}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("usage (-want +got):\n%s", d)
	}
}

// Cut into buckets, GPU time sums to GPUTime over the buckets' span, and
// each bucket holds GPUTime within it.
func TestBucketGPUTimeSumsToGPUTime(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		step := time.Duration(rapid.IntRange(1, 7200).Draw(t, "step_s")) * time.Second
		n := rapid.IntRange(1, 50).Draw(t, "n")
		from := t0
		sec := func(label string) time.Time {
			return from.Add(time.Duration(rapid.IntRange(-20000, 400000).Draw(t, label)) * time.Second)
		}
		held := Held{GPUs: rapid.IntRange(0, 8).Draw(t, "gpus"), Start: sec("start")}
		if rapid.Bool().Draw(t, "released") {
			held.End = sec("end")
		}
		now := sec("now")
		sum, buckets := 0.0, map[int]float64{}
		BucketGPUTime(held, from, step, n, now, func(i int, v float64) {
			if i < 0 || i >= n || v <= 0 {
				t.Fatalf("bucket %d of %d given %v", i, n, v)
			}
			if _, ok := buckets[i]; ok {
				t.Fatalf("bucket %d given twice", i)
			}
			buckets[i] = v
			sum += v
		})
		for i := range n {
			lo := from.Add(time.Duration(i) * step)
			want := GPUTime(held, UsageWindow{From: lo, To: lo.Add(step), Now: now})
			if math.Abs(buckets[i]-want) > 1e-9 {
				t.Fatalf("bucket %d: %v, want %v", i, buckets[i], want)
			}
		}
		whole := GPUTime(held, UsageWindow{From: from, To: from.Add(time.Duration(n) * step), Now: now})
		if math.Abs(sum-whole) > 1e-6 {
			t.Fatalf("buckets sum to %v, GPUTime over their span is %v", sum, whole)
		}
	})
}
