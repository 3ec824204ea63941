package scheduler

import (
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// mk builds a cluster of up nodes, IDs 1…nodes, of per H100s each: GPU IDs
// are node×10 + index, all in NVLink group 0, all healthy.
func mk(nodes, per int) Snapshot {
	s := Snapshot{Now: t0, Users: map[int64]Principal{}, Teams: map[int64]Principal{}}
	for n := int64(1); n <= int64(nodes); n++ {
		s.Nodes = append(s.Nodes, Node{ID: n, Name: "node" + string(rune('0'+n)), Up: true})
		for i := range per {
			s.GPUs = append(s.GPUs, GPU{ID: n*10 + int64(i), NodeID: n, Index: i, Model: "NVIDIA H100 80GB HBM3",
				MemoryMiB: 81559, NVLinkGroup: 0, Healthy: true})
		}
	}
	return s
}

// jobOpt changes a test job.
type jobOpt func(*Job)

func est(d time.Duration) jobOpt { return func(j *Job) { j.EstimatedDuration = d } }
func prio(p int) jobOpt          { return func(j *Job) { j.Priority = p } }
func ago(d time.Duration) jobOpt { return func(j *Job) { j.SubmittedAt = t0.Add(-d) } }
func team(t int64) jobOpt        { return func(j *Job) { j.TeamID = t } }
func model(m string) jobOpt      { return func(j *Job) { j.GPUModel = m } }
func mem(m int64) jobOpt         { return func(j *Job) { j.MinMemoryMiB = m } }
func multi() jobOpt              { return func(j *Job) { j.AllowMultiNode = true } }
func onNode(id int64) jobOpt     { return func(j *Job) { j.NodeID = id } }
func preemptible() jobOpt        { return func(j *Job) { j.Preemptible = true } }
func stopping() jobOpt           { return func(j *Job) { j.Stopping = true } }

// pend is a pending job of user, submitted an hour before t0 plus its ID in
// seconds (so IDs give FCFS order), normal priority, estimated 1h.
func pend(id, user int64, gpus int, opts ...jobOpt) Job {
	j := Job{ID: id, UserID: user, GPUCount: gpus, Priority: PriorityNormal,
		SubmittedAt: t0.Add(-time.Hour + time.Duration(id)*time.Second), EstimatedDuration: time.Hour}
	for _, o := range opts {
		o(&j)
	}
	return j
}

// run is a running job of user that started ran ago, estimated to run
// ran+left in all, on the given GPUs.
func run(id, user int64, ran, left time.Duration, gpus []int64, opts ...jobOpt) Job {
	j := Job{ID: id, UserID: user, GPUCount: len(gpus), Priority: PriorityNormal, GPUs: gpus,
		StartedAt: t0.Add(-ran), SubmittedAt: t0.Add(-ran - time.Minute), EstimatedDuration: ran + left}
	for _, o := range opts {
		o(&j)
	}
	return j
}

// ids lists GPU IDs.
func ids(xs ...int64) []int64 { return xs }

// span of GPU IDs lo…hi.
func gpuRange(lo, hi int64) []int64 {
	var out []int64
	for g := lo; g <= hi; g++ {
		out = append(out, g)
	}
	return out
}

// cfg is a configuration: a preset, then changes.
func cfg(name string, opts ...func(*Config)) Config {
	c, ok := Preset(name)
	if !ok {
		panic(name)
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// startsOf maps started job IDs to their GPUs.
func startsOf(pl Plan) map[int64][]int64 {
	out := map[int64][]int64{}
	for _, s := range pl.Starts {
		out[s.JobID] = s.GPUIDs
	}
	return out
}

// whyOf maps waiting job IDs to their explanations.
func whyOf(pl Plan) map[int64]Explanation {
	out := map[int64]Explanation{}
	for _, e := range pl.Pending {
		out[e.JobID] = e
	}
	return out
}

// codesOf maps waiting job IDs to "code: reason".
func codesOf(pl Plan) map[int64]string {
	out := map[int64]string{}
	for _, e := range pl.Pending {
		out[e.JobID] = e.Code + ": " + e.Reason
	}
	return out
}

// queueOf lists the waiting jobs in queue order.
func queueOf(pl Plan) []int64 {
	var out []int64
	for _, e := range pl.Pending {
		out = append(out, e.JobID)
	}
	return out
}

// at is t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// cmpPlan compares plans with nil and empty slices alike, leaving out the
// bookings' pins (TestPlanPins checks them).
var cmpPlan = cmp.Options{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Plan{}, "Pins")}
