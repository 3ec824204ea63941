package sim

import (
	"container/heap"
	"fmt"
	"slices"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// Epoch is the virtual time at which every replay starts: the first
// arrival. Snapshots carry Epoch plus the simulated offset.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// maxPassesPerInstant bounds the passes at one virtual time: a pass that
// preempts is followed by another at the same instant, so that the job the
// GPUs were freed for can start.
const maxPassesPerInstant = 4

// Record is what happened to one job in a replay. Times are offsets from
// the first arrival.
type Record struct {
	Job        Job           // the job as replayed
	FirstStart time.Duration // first time it got GPUs
	Start      time.Duration // start of the run that completed
	End        time.Duration // completion
	Preempted  int           // how many times it was stopped
	Done       bool          // it completed
	TimedOut   bool          // it was stopped at its time limit (Done too)
	Model      string        // the GPU model of the run that completed
	// Unschedulable: the core said no GPU can ever fit it, or it was still
	// pending on an idle cluster after the last arrival; it was dropped.
	Unschedulable bool
}

// Result is one replay of a workload under one policy.
type Result struct {
	Records        []Record // in Workload.Jobs order
	Preemptions    int
	Unschedulable  int
	Backfilled     int         // starts the core marked as backfilled
	TimedOut       int         // jobs stopped at their time limit
	BusyGPUSeconds float64     // GPU-seconds held, runs later preempted included
	LostGPUSeconds float64     // GPU-seconds of runs lost to preemption
	Passes         int         // scheduling passes run
	Holds          *HoldResult // the agent's holds (holds.go); nil without signals
}

// Run replays w under cfg on a virtual clock. Events are arrivals and
// completions (start + runtime); at each distinct event time it applies
// every completion and arrival due, then runs one scheduling pass (and, if
// that pass preempted, up to maxPassesPerInstant-1 more at the same time),
// starting and preempting jobs as the plan says. A preempted job stops at
// once, loses its progress, and re-enters the queue with its original
// SubmittedAt. The replay ends when no job is pending or running; a job
// that can never start is dropped (see dropStuck) and counted.
func Run(w *Workload, cfg scheduler.Config) (*Result, error) {
	s := newSimulator(w, cfg)
	limit := 4*maxPassesPerInstant*len(w.Jobs) + 100
	var t time.Duration
	for {
		next, ok := s.nextEvent()
		switch {
		case ok:
			t = next
			s.holds.advance(t)
			s.completeUntil(t)
			s.arriveUntil(t)
		case len(s.pending) == 0:
			s.res.Holds = s.holds.result(t)
			return s.res, nil
		default:
			// An idle cluster, nothing more to come, and the last pass
			// started nothing: the job at the head can never start.
			s.dropStuck()
		}
		for range maxPassesPerInstant {
			if s.res.Passes >= limit {
				return nil, fmt.Errorf("replay did not finish after %d passes", limit)
			}
			preempted, err := s.pass(t)
			if err != nil {
				return nil, fmt.Errorf("at %v: %w", t, err)
			}
			if !preempted {
				break
			}
		}
	}
}

// simulator is the state of one replay.
type simulator struct {
	w         *Workload
	cfg       scheduler.Config
	nodes     []scheduler.Node
	gpus      []scheduler.GPU
	slow      []float64     // GPU id → how many times its trace runtime a job takes there
	frac      []float64     // GPU id → its fraction of a GPU (1 whole; a MIG device its slices of seven)
	owner     []int         // GPU id → index of the job holding it, -1 free
	index     map[int64]int // job ID → index in w.Jobs
	runs      []run         // by job index
	next      int           // index of the next arrival
	pending   []scheduler.Job
	head      int64           // the job the last pass put first in its queue and did not start
	buf       []scheduler.Job // reused for Snapshot.Pending
	running   []int           // job indices
	ends      endHeap
	usage     *usageBook
	users     []int64  // every user of the workload, sorted
	userNames []string // by position in users
	res       *Result
	// committed is the GPU time that preemptions already made will lose
	// but LostGPUSeconds does not count yet: the reloads of stopped
	// checkpointing jobs, queued or under way (counted when the run ends).
	committed float64
	holds     *holdBook  // the agent's holds, when the workload has signals
	steer     *steerBook // what steering learned, when the workload steers
}

// run is a job's current hold on GPUs.
type run struct {
	start time.Duration
	gpus  []int64
	gen   int // bumped at each start, so a preempted run's end event is ignored
	state int // stateWaiting…
	// done is the progress a checkpointing job kept from earlier runs, in
	// trace time; overhead is this run's reload time before progress resumes.
	done, overhead time.Duration
	// slow is how many times its trace runtime the job takes on this
	// run's GPUs (the slowest of them).
	slow float64
	// attained is the GPU-seconds of earlier runs (LAS attained service).
	attained float64
	// preemptedAt is when the job was last stopped; stopped says it was.
	preemptedAt time.Duration
	stopped     bool
}

// newSimulator sets up an empty cluster before the first arrival.
func newSimulator(w *Workload, cfg scheduler.Config) *simulator {
	s := &simulator{w: w, cfg: cfg, index: map[int64]int{}, runs: make([]run, len(w.Jobs))}
	s.nodes, s.gpus, s.slow, s.frac = w.Cluster.inventory()
	s.owner = make([]int, len(s.gpus)+1)
	for i := range s.owner {
		s.owner[i] = -1
	}
	s.res = &Result{Records: make([]Record, len(w.Jobs))}
	s.holds = newHoldBook(w.Signals)
	if w.Steer {
		s.steer = newSteerBook(w.Cluster, w.Scoring)
	}
	seen := map[int64]bool{}
	for i, j := range w.Jobs {
		s.index[j.ID] = i
		s.res.Records[i].Job = j
		if !seen[j.User] {
			seen[j.User] = true
			s.users = append(s.users, j.User)
		}
	}
	slices.Sort(s.users)
	for _, u := range s.users {
		s.userNames = append(s.userNames, fmt.Sprintf("user%d", u))
	}
	halfLife := time.Duration(cfg.FairShare.HalfLife)
	if halfLife <= 0 {
		halfLife = time.Duration(scheduler.DefaultConfig().FairShare.HalfLife)
	}
	s.usage = newUsageBook(halfLife)
	return s
}

// at is the virtual wall time of offset d.
func at(d time.Duration) time.Time { return Epoch.Add(d) }

// nextEvent is the time of the next arrival or completion; ok is false
// when there is neither.
func (s *simulator) nextEvent() (t time.Duration, ok bool) {
	for len(s.ends) > 0 && s.ends[0].gen != s.runs[s.ends[0].job].gen {
		heap.Pop(&s.ends) // the run was preempted
	}
	if s.next < len(s.w.Jobs) {
		t, ok = s.w.Jobs[s.next].Submit, true
	}
	if len(s.ends) > 0 && (!ok || s.ends[0].at < t) {
		t, ok = s.ends[0].at, true
	}
	if e, held := s.holds.nextEnd(); held && (!ok || e < t) {
		t, ok = e, true // an unused hold expires: its GPUs go to waiting jobs
	}
	return t, ok
}

// arriveUntil queues every job arriving at or before t.
func (s *simulator) arriveUntil(t time.Duration) {
	for ; s.next < len(s.w.Jobs) && s.w.Jobs[s.next].Submit <= t; s.next++ {
		s.pending = append(s.pending, s.schedJob(s.next))
		s.runs[s.next].state = stateQueued
	}
}
