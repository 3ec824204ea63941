package sim

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"slices"
	"time"
)

// SignalOptions describe the client agent's signals added to a workload:
// a share of jobs (the recall) is announced Lead before it arrives; of all
// signals, Precision are right, the rest are false alarms at random times
// for random users. Each signal makes a hold of TTL for its user.
type SignalOptions struct {
	Recall    float64       // share of jobs signalled, 0–1
	Precision float64       // share of signals followed by their job, (0, 1]
	Lead      time.Duration // how long before its arrival a job is signalled
	TTL       time.Duration // how long a hold lasts unused (the server's GPUSCHED_HOLD_TTL)
	Seed      uint64
}

// Signal is one agent signal: at At, user asks to have GPUs held.
type Signal struct {
	At   time.Duration
	User int64
	GPUs int
	Job  int64 // the job it announces; 0 for a false alarm
}

// Signals are a workload's agent signals, sorted by time, and the hold TTL.
type Signals struct {
	List []Signal
	TTL  time.Duration
}

// MakeSignals draws the signals of w, deterministically from the seed: each
// job is signalled with probability Recall (at arrival − Lead, not before
// 0, asking for the job's GPUs), and false alarms are added so that
// Precision of all signals are right, uniformly over the arrival span, for
// users and sizes drawn from the workload's jobs.
func MakeSignals(w *Workload, o SignalOptions) (*Signals, error) {
	switch {
	case o.Recall < 0 || o.Recall > 1:
		return nil, errors.New("signal recall must be 0–1")
	case o.Precision <= 0 || o.Precision > 1:
		return nil, errors.New("signal precision must be in (0, 1]")
	case o.Lead < 0 || o.TTL <= 0:
		return nil, errors.New("signal lead must not be negative and the hold TTL must be positive")
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5167a15))
	s := &Signals{TTL: o.TTL}
	var span time.Duration
	for _, j := range w.Jobs {
		span = max(span, j.Submit)
		if rng.Float64() < o.Recall {
			s.List = append(s.List, Signal{At: max(j.Submit-o.Lead, 0), User: j.User, GPUs: j.GPUs, Job: j.ID})
		}
	}
	if n := len(w.Jobs); n > 0 {
		falses := int(float64(len(s.List))*(1-o.Precision)/o.Precision + 0.5)
		for range falses {
			like := w.Jobs[rng.IntN(n)]
			other := w.Jobs[rng.IntN(n)]
			s.List = append(s.List, Signal{At: time.Duration(rng.Int64N(int64(span) + 1)), User: like.User, GPUs: other.GPUs})
		}
	}
	slices.SortStableFunc(s.List, func(a, b Signal) int {
		if c := cmp.Compare(a.At, b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.Job, b.Job)
	})
	return s, nil
}
