package scheduler

import (
	"cmp"
	"slices"
	"time"
)

// pass is the state of one scheduling pass.
type pass struct {
	snap   *Snapshot
	now    time.Time
	cfg    Config
	defDur time.Duration

	nodes   []node
	gpus    []gpu
	byID    map[int64]int32
	classes []gpuClass
	running []running
	largest int // most GPUs on one node

	totalFree, maxFree int // GPUs free now, in all and on the fullest node
	version            int // bumps at every start

	filters  map[filterKey]*filter
	noFit    map[shape]bool
	counts   map[*filter]countMemo
	words    map[shape]wordsMemo
	bookings []booking
	pins     [][]int32 // per GPU: the bookings pinned to it
	users    map[int64]*account
	teams    map[int64]*account
	prof     *profile // built when first needed

	head       *head
	waiting    int // jobs so far that wait for capacity or order
	starts     []Start
	startSpans []startSpan
	preempts   []Preemption
	outs       []outcome
	steered    []Steered

	gittins map[gittinsKey]float64 // Gittins indices computed in this pass
	shared  []sharedGPU            // the shared GPUs and their slots (share.go), built when first needed
	// sharePreempted: a share job preempted in this pass; shareHolds the
	// slots it will take once its victims stop (share_wait.go).
	sharePreempted bool
	shareHolds     []startSpan

	arrayRunning map[int64]int // running tasks of each array, starts of this pass included

	cands    []cand
	ncs      []nodeCands
	takenBuf []bool
	evBuf    []event
	winBuf   []win
}

// startSpan is a start's GPUs and estimated run time, for the profile.
type startSpan struct {
	gpus []int32
	dur  int64
}

// outcome is what the pass decided for one queued job.
type outcome struct {
	started bool
	code    string
	reason  string
	at      time.Time
	waits   bool  // waits for capacity or order (not quota, not never)
	noETA   bool  // no estimate can be made (never fits, unplaceable)
	eta     int64 // relative; forever: unknown
	req     request
}

// Schedule runs one pass: the snapshot and configuration in, the plan out.
//
// Plan.Starts lists the jobs that start now, in queue order, each with all
// its GPUs (in node ID, index order); Plan.Preemptions the running jobs to
// stop for the head job, by job ID; Plan.Pending one explanation for every
// other pending job, in queue order; Plan.Steered the pending jobs steered
// to a GPU model (steer.go), by job ID. It is a pure function of its
// arguments: time comes only from s.Now, maps are read in sorted order, the
// order of the snapshot's slices does not matter, and the snapshot is not
// modified. It does not validate c: an unknown policy orders as fcfs, and a
// non-positive DefaultDuration counts as DefaultConfig's. README.md
// describes the stages; each stage's doc comment gives its rules.
func Schedule(s Snapshot, c Config) Plan {
	p := newPass(&s, c)
	p.steer(&s) // steer.go
	q := p.queue(&s)
	p.outs = make([]outcome, len(q))
	for i, qj := range q {
		p.outs[i] = outcome{eta: forever, req: newRequest(qj)}
	}
	p.startOnHolds(q) // holds_first.go
	for i, qj := range q {
		if !p.outs[i].started {
			p.decide(qj, &p.outs[i])
		}
	}
	p.estimate(q)
	p.sortStarts(q)
	return p.plan(q)
}

// newPass indexes the snapshot and pins bookings.
func newPass(s *Snapshot, c Config) *pass {
	p := indexPass(s, c)
	p.pinBookings(s)
	p.initQuotas()
	p.countArrays(s)
	return p
}

// indexPass starts a pass on s: the cluster indexed (availability.go).
func indexPass(s *Snapshot, c Config) *pass {
	p := &pass{snap: s, now: s.Now, cfg: c, defDur: time.Duration(c.DefaultDuration),
		filters: map[filterKey]*filter{}, noFit: map[shape]bool{}, counts: map[*filter]countMemo{},
		words: map[shape]wordsMemo{}}
	if p.defDur <= 0 {
		p.defDur = time.Duration(DefaultConfig().DefaultDuration)
	}
	p.index(s)
	return p
}

// plan assembles the Plan: starts in queue order, preemptions by job ID,
// and an explanation for every job that does not start, in queue order,
// with Position counting only those (1 = next).
func (p *pass) plan(q []*qjob) Plan {
	pl := Plan{Starts: p.starts, Preemptions: p.preempts, Pending: make([]Explanation, 0, len(q)-len(p.starts))}
	slices.SortFunc(pl.Preemptions, func(a, b Preemption) int { return cmp.Compare(a.JobID, b.JobID) })
	for i, qj := range q {
		o := &p.outs[i]
		if o.started {
			continue
		}
		e := Explanation{JobID: qj.job.ID, Position: len(pl.Pending) + 1, Code: o.code, Reason: o.reason,
			Score: qj.score, At: o.at}
		if len(pl.Pending) < etaLimit && o.code != ReasonDependency { // its place does not matter yet
			e.Standing = p.standing(qj.job)
		}
		if o.eta != forever {
			e.EstimatedStart = p.abs(o.eta)
		}
		pl.Pending = append(pl.Pending, e)
	}
	pl.Pins = p.activePins()
	pl.Steered = p.steered
	return pl
}

// activePins lists the GPUs pinned to the bookings in force now.
func (p *pass) activePins() []Pin {
	var out []Pin
	for i := range p.bookings {
		bk := &p.bookings[i]
		if !bk.active || len(bk.pins) == 0 {
			continue
		}
		ids := make([]int64, len(bk.pins))
		for j, gi := range bk.pins {
			ids[j] = p.gpus[gi].id
		}
		slices.Sort(ids)
		out = append(out, Pin{BookingID: bk.b.ID, GPUIDs: ids})
	}
	return out
}

// ensureProfile builds the availability profile once, with the starts
// made so far.
func (p *pass) ensureProfile() {
	if p.prof != nil {
		return
	}
	p.prof = p.buildProfile()
	for _, st := range p.startSpans {
		for _, gi := range st.gpus {
			p.prof.add(gi, span{0, st.dur, 0})
		}
	}
}
