package sim

import (
	"container/heap"
	"math"
	"slices"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// Job states in a replay.
const (
	stateWaiting = iota // not arrived yet
	stateQueued
	stateRunning
	stateDone
	stateDropped
)

// schedJob is job i as the scheduler sees it while pending.
func (s *simulator) schedJob(i int) scheduler.Job {
	j := s.w.Jobs[i]
	r := &s.runs[i]
	est := j.Estimate
	if est == 0 {
		est = j.Runtime
	}
	if r.done > 0 { // what is left, plus the reload
		est = max(time.Second, est-r.done) + s.w.RestartOverhead
	}
	if j.NoEstimate {
		est = 0
	}
	sj := scheduler.Job{
		ID: j.ID, UserID: j.User, Name: j.Name, GPUCount: j.GPUs, GPUModel: j.Profile, AllowMultiNode: j.MultiNode, Nodes: j.Nodes,
		Priority: j.Priority, Preemptible: true, SubmittedAt: at(j.Submit), EstimatedDuration: est,
		Checkpoint: j.Checkpoint, AttainedGPUSeconds: r.attained, Learned: j.Learned, GPUShare: j.GPUShare,
	}
	sj.TimeLimit = j.TimeLimit
	sj.ArrayID, sj.ArrayMaxRunning = j.ArrayID, j.ArrayMaxRunning
	sj.WaitsFor = s.waitsFor(j)
	if s.steer != nil {
		sj.JobType = JobType(j)
	}
	if r.stopped {
		sj.PreemptedAt = at(r.preemptedAt)
	}
	return sj
}

// start places job i on gpus at t and schedules its completion.
func (s *simulator) start(i int, gpus []int64, t time.Duration) {
	r := &s.runs[i]
	r.start, r.gpus, r.state = t, slices.Clone(gpus), stateRunning
	r.gen++
	r.slow = 1
	for _, g := range gpus {
		r.slow = max(r.slow, s.slow[g])
	}
	r.slow *= s.w.sliceSlowdown(s.w.Jobs[i])
	for _, g := range gpus {
		s.owner[g] = i
	}
	s.running = append(s.running, i)
	rec := &s.res.Records[i]
	if rec.Preempted == 0 {
		rec.FirstStart = t
	}
	rec.Start = t
	r.overhead = 0
	if r.done > 0 {
		r.overhead = s.w.RestartOverhead
	}
	end := t + slower(s.w.Jobs[i].Runtime-r.done, r.slow) + r.overhead
	if limit := s.w.Jobs[i].TimeLimit; limit > 0 && end > t+limit {
		end = t + limit // stopped at its limit
	}
	heap.Push(&s.ends, endEvent{at: end, job: i, gen: r.gen})
	s.holds.consume(s.w.Jobs[i], t)
}

// release frees job i's GPUs at t, books its usage, and returns the
// GPU-seconds the run held.
func (s *simulator) release(i int, t time.Duration) float64 {
	r := &s.runs[i]
	for _, g := range r.gpus {
		s.owner[g] = -1
	}
	j := s.w.Jobs[i]
	s.usage.close(scheduler.Held{UserID: j.User, GPUs: len(r.gpus), Fraction: s.fraction(r.gpus), Start: at(r.start), End: at(t)})
	held := s.weight(r.gpus) * (t - r.start).Seconds()
	s.res.BusyGPUSeconds += held
	r.gpus = nil
	s.running = slices.DeleteFunc(s.running, func(k int) bool { return k == i })
	return held
}

// completeUntil ends every run due at or before t, in time order.
func (s *simulator) completeUntil(t time.Duration) {
	for len(s.ends) > 0 && s.ends[0].at <= t {
		e := heap.Pop(&s.ends).(endEvent)
		if e.gen != s.runs[e.job].gen || s.runs[e.job].state != stateRunning {
			continue // preempted since
		}
		model := s.gpus[s.runs[e.job].gpus[0]-1].Model
		if s.steer != nil {
			s.steer.observe(s.w.Jobs[e.job], model, e.at-s.runs[e.job].start)
		}
		s.res.Records[e.job].Model = model
		s.release(e.job, e.at)
		reload := s.w.Jobs[e.job].GPUWeight() * s.runs[e.job].overhead.Seconds()
		s.res.LostGPUSeconds += reload
		s.committed -= reload
		s.runs[e.job].state = stateDone
		rec := &s.res.Records[e.job]
		rec.End, rec.Done = e.at, true
		if j := s.w.Jobs[e.job]; j.TimeLimit > 0 && e.at-s.runs[e.job].start >= j.TimeLimit &&
			slower(j.Runtime-s.runs[e.job].done, s.runs[e.job].slow)+s.runs[e.job].overhead > j.TimeLimit {
			rec.TimedOut = true
			s.res.TimedOut++
		}
	}
}

// preempt stops running job i at t and puts it back in the queue at its
// original place (SubmittedAt). A job that checkpoints keeps its progress
// (less this run's reload time, which is lost); any other job loses the
// run. Either way the run counts as attained service.
func (s *simulator) preempt(i int, t time.Duration) {
	r := &s.runs[i]
	run, g := t-r.start, s.w.Jobs[i].GPUWeight()
	held := s.release(i, t)
	r.attained += held
	s.committed -= g * r.overhead.Seconds()
	if s.w.Jobs[i].Checkpoint {
		r.done += slower(max(0, run-r.overhead), 1/r.slow) // progress in trace time
		s.res.LostGPUSeconds += g * min(run, r.overhead).Seconds()
		if r.done > 0 { // its next run reloads: decided now, lost later
			s.committed += g * s.w.RestartOverhead.Seconds()
		}
	} else {
		s.res.LostGPUSeconds += held
	}
	r.preemptedAt, r.stopped = t, true
	s.runs[i].state = stateQueued
	s.res.Records[i].Preempted++
	s.res.Preemptions++
	j := s.schedJob(i)
	k, _ := slices.BinarySearchFunc(s.pending, j, func(a, b scheduler.Job) int {
		if c := a.SubmittedAt.Compare(b.SubmittedAt); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	s.pending = slices.Insert(s.pending, k, j)
}

// drop gives up on queued job i: it can never start.
func (s *simulator) drop(i int) {
	if r := s.runs[i]; r.done > 0 {
		s.committed -= s.w.Jobs[i].GPUWeight() * s.w.RestartOverhead.Seconds()
	}
	s.runs[i].state = stateDropped
	s.res.Records[i].Unschedulable = true
	s.res.Unschedulable++
}

// dropStuck drops what blocks an idle cluster: every queued job that no
// node (or, spanning nodes, the whole cluster) can hold; failing that, the
// job the last pass put at the head of its queue, else the oldest.
func (s *simulator) dropStuck() {
	c := s.w.Cluster
	stuck := func(j scheduler.Job) bool {
		return j.GPUCount > c.GPUs() || (j.GPUCount > c.MaxGPUsPerNode() && !j.AllowMultiNode)
	}
	if !slices.ContainsFunc(s.pending, stuck) {
		head := s.pending[0].ID
		if slices.ContainsFunc(s.pending, func(j scheduler.Job) bool { return j.ID == s.head }) {
			head = s.head
		}
		stuck = func(j scheduler.Job) bool { return j.ID == head }
	}
	s.pending = slices.DeleteFunc(s.pending, func(j scheduler.Job) bool {
		if stuck(j) {
			s.drop(s.index[j.ID])
			return true
		}
		return false
	})
}

// endEvent is a run's completion.
type endEvent struct {
	at       time.Duration
	job, gen int
}

// endHeap orders completions by time, then job index.
type endHeap []endEvent

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(a, b int) bool {
	return h[a].at < h[b].at || (h[a].at == h[b].at && h[a].job < h[b].job)
}
func (h endHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.(endEvent)) }
func (h *endHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// weight is how many GPUs' worth gpus are: each device its fraction of a
// GPU.
func (s *simulator) weight(gpus []int64) float64 {
	w := 0.0
	for _, g := range gpus {
		w += s.frac[g]
	}
	return w
}

// fraction is the mean fraction of a GPU of gpus (1 for whole GPUs), as
// scheduler.Held counts it.
func (s *simulator) fraction(gpus []int64) float64 {
	if len(gpus) == 0 {
		return 1
	}
	return s.weight(gpus) / float64(len(gpus))
}

// slower is d stretched f times (f = 1: d exactly).
func slower(d time.Duration, f float64) time.Duration {
	if f == 1 {
		return d
	}
	return time.Duration(math.Round(float64(d) * f))
}
