// Package sim replays GPU-cluster job traces through the scheduling core
// (internal/scheduler) on a virtual clock, so that policies can be compared
// on the same workload without a database, a node or a wall clock.
//
// A replay has four steps: read a trace (Alibaba v2023 openb pods, the
// Tiresias job trace, or our plain CSV) into Jobs; Prepare them for a
// Cluster (take the first N by arrival, handle jobs larger than a node,
// scale arrival times to a target offered load); Run the event loop once
// per policy; Summarize each run into Metrics and print them side by side.
// README.md states every modelling choice.
package sim

import (
	"math"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// Job is one job of a trace, as the simulator replays it.
type Job struct {
	// ID is the job's identity in the replay: 1-based, in trace order.
	ID int64
	// Name is the trace's own name of the job (pod name, job_id, id).
	Name string
	// User is the 1-based id of the job's owner (see Trace.Users).
	User int64
	// Submit is the arrival time as an offset from the trace start.
	Submit time.Duration
	// Runtime is how long the job runs once started (and again from the
	// start after a preemption: progress is lost).
	Runtime time.Duration
	// GPUs is the number of whole GPUs the job asks for.
	GPUs int
	// Priority is scheduler.PriorityLow … scheduler.PriorityCritical.
	Priority int
	// Estimate is the runtime the user announces to the scheduler; 0 means
	// the exact Runtime is announced.
	Estimate time.Duration
	// MultiNode lets the job span nodes (set by Prepare for jobs larger than
	// one node of the simulated cluster).
	MultiNode bool
	// Nodes is the job's shape (the core's Job.Nodes): above 1, exactly
	// this many nodes with GPUs/Nodes GPUs each; 0 none.
	Nodes int
	// NoEstimate: the job announces no runtime (Prepare's NoEstimates);
	// the scheduler assumes its DefaultDuration.
	NoEstimate bool
	// Checkpoint: the job saves its state when preempted and resumes from
	// it (Prepare's Checkpointable share, drawn per job).
	Checkpoint bool
	// Learned is the runtime distribution the scoring model would have
	// learned for the job's type by its arrival (LearnDistributions).
	Learned scheduler.RuntimeDist
	// After lists the jobs (by ID) that must complete before this one
	// starts, as Slurm's afterok: a pipeline's earlier steps. A job whose
	// dependency timed out or was dropped is dropped too.
	After []int64
	// ArrayID is the array the job is a task of, as the core keys it
	// (scheduler.Job.ArrayID): the ID of the array's first task in the
	// replay; 0 none.
	ArrayID int64
	// ArrayMaxRunning is the array's %N, Slurm's limit on how many of its
	// tasks hold GPUs at once: the core holds a task while N run
	// (scheduler.ReasonArrayLimit); 0 none.
	ArrayMaxRunning int
	// TimeLimit is the job's limit: a run that would take longer is
	// stopped there and the job ends timed out (0: none). The core plans
	// on it when the job announces no estimate.
	TimeLimit time.Duration
	// Share is the fraction of one GPU the trace says the job used (an
	// Alibaba pod's gpu_milli/1000 below 1); 0 for whole GPUs. Without MIG
	// such a job takes one whole GPU.
	Share float64
	// Profile is the MIG profile of the one MIG device the job asks for,
	// on a cluster with MIG (Prepare, see assignSlices); "" whole GPUs.
	Profile string
	// GPUShare is the share of one shared GPU the job asks for, on a
	// cluster with shared GPUs (Prepare, see assignShares); 0: none.
	GPUShare float64
}

// GPUWeight is how many GPUs' worth the job holds: its GPUs, a MIG device
// counting as its fraction of a GPU (slices of seven).
func (j Job) GPUWeight() float64 {
	if j.Profile != "" {
		return float64(j.GPUs) * profileFraction(j.Profile)
	}
	if j.GPUShare > 0 {
		return j.GPUShare
	}
	return float64(j.GPUs)
}

// Trace is a trace file read into jobs, with what was left out and how the
// file's columns were mapped.
type Trace struct {
	// File is the path the trace was read from.
	File string
	// Format is the reader used: alibaba-openb, tiresias or csv.
	Format string
	// Rows is the number of data rows in the file.
	Rows int
	// Jobs are the jobs kept, in file order.
	Jobs []Job
	// Users names each user id used by Jobs (index 0 unused).
	Users []string
	// Skipped counts rows left out, by reason ("cpu-only", "never ran"…).
	Skipped map[string]int
	// Notes say, one sentence each, how the trace was interpreted; the
	// report prints them in its header.
	Notes []string
}

// skip counts a row left out for reason.
func (t *Trace) skip(reason string) {
	if t.Skipped == nil {
		t.Skipped = map[string]int{}
	}
	t.Skipped[reason]++
}

// seconds converts a number of seconds to a Duration, rounded to the
// nanosecond.
func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}
