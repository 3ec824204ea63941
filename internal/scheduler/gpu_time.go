package scheduler

import "time"

// Held is GPU time as usage counts it: GPUs GPUs held together by one
// attempt of a job, from Start until End, charged to a user and a team.
// Each attempt of a job is its own Held (a job run twice is two, and the
// wait between them counts for nothing).
type Held struct {
	UserID int64
	TeamID int64 // 0: no team
	GPUs   int
	// Fraction is the share of a GPU each of them is: a MIG device's
	// compute slices over its GPU's (1/7 for a 1g.10gb slice of an H100),
	// so a slice counts as that fraction of a GPU. 0 means 1: whole GPUs.
	Fraction float64
	Start    time.Time
	End      time.Time // zero: still held
	// Kind is what the job was for, as usage splits GPU time ("batch", or
	// an interactive session's kind, "jupyter"); the core ignores it.
	Kind string
}

// UsageWindow says which part of held time counts, and how: the part
// within [From, To), never after Now (a Held still held runs to Now),
// decayed to Now with HalfLife. A zero From counts from the start, a zero
// To up to Now; a non-positive HalfLife gives plain GPU-seconds.
type UsageWindow struct {
	From, To time.Time
	Now      time.Time
	HalfLife time.Duration
}

// GPUTime is the GPU-seconds h held within w, decayed as w says (see
// DecayedUsage), a MIG device counting as its Fraction of a GPU. It is the one measure of GPU time: the scheduler's fair
// share, the fair-share standing and the usage graphs all sum it.
func GPUTime(h Held, w UsageWindow) float64 {
	start, end := h.Start, h.End
	if end.IsZero() || end.After(w.Now) {
		end = w.Now
	}
	if !w.To.IsZero() && end.After(w.To) {
		end = w.To
	}
	if start.Before(w.From) {
		start = w.From
	}
	u := DecayedUsage(h.GPUs, start, end, w.Now, w.HalfLife)
	if h.Fraction > 0 {
		u *= h.Fraction
	}
	return u
}

// ChargeUsage adds the GPU time of every Held within w to the Usage of
// its user in s.Users and of its team in s.Teams; a user or team not
// listed there is not charged.
func ChargeUsage(s *Snapshot, held []Held, w UsageWindow) {
	for _, h := range held {
		u := GPUTime(h, w)
		if u == 0 {
			continue
		}
		if p, ok := s.Users[h.UserID]; ok {
			p.Usage += u
			s.Users[h.UserID] = p
		}
		if p, ok := s.Teams[h.TeamID]; ok && h.TeamID != 0 {
			p.Usage += u
			s.Teams[h.TeamID] = p
		}
	}
}

// BucketGPUTime cuts h's plain GPU time (no decay, nothing after now) into
// n buckets of step from from, calling add with each bucket's index and
// GPU-seconds where h held GPUs. Summed over the buckets it is GPUTime over
// [from, from+n·step).
func BucketGPUTime(h Held, from time.Time, step time.Duration, n int, now time.Time, add func(bucket int, gpuSeconds float64)) {
	if step <= 0 || n <= 0 {
		return
	}
	end := h.End
	if end.IsZero() || end.After(now) {
		end = now
	}
	for i := max(0, int(h.Start.Sub(from)/step)); i < n; i++ {
		lo := from.Add(time.Duration(i) * step)
		if !lo.Before(end) {
			break
		}
		if v := GPUTime(h, UsageWindow{From: lo, To: lo.Add(step), Now: now}); v > 0 {
			add(i, v)
		}
	}
}
