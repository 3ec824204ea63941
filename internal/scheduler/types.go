// Package scheduler is GPUScheduler's pure scheduling core: a Snapshot of the
// cluster and its queue goes in, a Plan comes out (which job starts on which
// exact GPUs, which running jobs to preempt, and why every other job waits).
// It has no database, no clock and no I/O: time arrives in the snapshot, and
// the same snapshot and configuration always give the same plan. It imports
// only the standard library. README.md draws the pipeline.
package scheduler

import "time"

// Priority levels of a job, as in the orchestration design.
const (
	PriorityLow      = 1
	PriorityNormal   = 2
	PriorityHigh     = 3
	PriorityCritical = 4
)

// Node is a GPU host.
type Node struct {
	ID      int64
	Name    string
	Up      bool // heartbeating; GPUs of a node that is not up are never offered
	Drained bool // an admin asked that nothing new start here
}

// GPU is one accelerator. Only GPUs that are present are in a snapshot.
type GPU struct {
	ID          int64
	NodeID      int64
	Index       int
	Model       string // e.g. "NVIDIA H100 80GB HBM3"
	MemoryMiB   int64
	NVLinkGroup int  // GPUs of one node sharing a group are NVLink-connected; -1 when unknown
	Healthy     bool // false: failed (XID, ECC) — never offered
	Drained     bool
	Foreign     bool // a process the scheduler did not start holds it — never offered while so
	// Profile is a MIG device's profile ("1g.10gb"); "" for a whole GPU. A
	// MIG device is a slice of a GPU in MIG mode, which is then not in the
	// snapshot whole. Only jobs whose GPUModel names its profile are placed
	// on it (IsMIGProfile); whole-GPU jobs never are.
	Profile string
	// SharedSlots is, for one slot of a shared GPU, how many slots that
	// GPU has (0: not a slot). An admin marks a GPU as shared with N
	// slots; its agent then registers N slot devices in its place, each
	// with the GPU's Index and Model and 1/N of its memory. Only share
	// jobs (Job.GPUShare, Job.GPUShareMemoryMiB) are placed on slots, all
	// of a job's slots on one GPU (share.go); whole-GPU and MIG jobs never.
	SharedSlots int
	// Fraction is the part of a GPU the device is, as quotas count it (as
	// usage does, GPUTime): a MIG device's compute slices over its GPU's,
	// a slot 1/SharedSlots of its GPU. 0 means 1 for a whole GPU, and
	// 1/SharedSlots for a slot.
	Fraction float64
}

// Job is a request for GPUs: pending (in Snapshot.Pending) or running
// (in Snapshot.Running, with StartedAt and GPUs set).
type Job struct {
	ID     int64
	UserID int64
	TeamID int64 // 0: no team
	Name   string

	GPUCount int
	// GPUModel is "" for any whole GPU, else a part of a whole GPU's Model
	// (case-insensitive), or a MIG profile ("1g.10gb"): then only MIG
	// devices of that profile.
	GPUModel     string
	MinMemoryMiB int64 // 0 any; else each GPU must have at least this much memory
	// GPUShare (0 < share ≤ 1) or GPUShareMemoryMiB (> 0) ask for part of
	// one shared GPU instead of whole GPUs: as many of its slots as hold
	// the fraction and the memory (SlotsNeeded), on one GPU. GPUCount is 1.
	// 0, 0: a whole-GPU (or MIG) job.
	GPUShare          float64
	GPUShareMemoryMiB int64
	AllowMultiNode    bool // may span nodes; otherwise all GPUs come from one node
	// Nodes is the job's shape (Slurm's -N with --gpus-per-node): when
	// above 1 the job takes exactly Nodes distinct nodes with
	// GPUCount/Nodes GPUs on each (GPUCount must be a multiple), whatever
	// AllowMultiNode says. 0 or 1: no shape (packed as AllowMultiNode says).
	Nodes int
	// NodeID pins the job to one node (a lease asked for on that node); 0: any.
	NodeID int64

	Priority    int  // PriorityLow … PriorityCritical
	Preemptible bool // may be stopped for a higher-priority job

	// SubmittedAt is the job's place in the queue. A preempted job keeps
	// its original SubmittedAt, so it goes back to where it was.
	SubmittedAt time.Time
	// EstimatedDuration is the user's estimate, else a learned one; 0 means
	// unknown and Config.DefaultDuration is used.
	EstimatedDuration time.Duration
	// LearnedEstimate says EstimatedDuration is the scoring model's, not
	// the user's: steering replaces it by the runtime learned on the GPU
	// model it steers the job to.
	LearnedEstimate bool
	// TimeLimit is the job's time limit: it is stopped when it has run
	// this long, so no run is planned longer; with no other estimate it is
	// the run's planned length (backfill plans on it). 0: no limit.
	TimeLimit time.Duration
	// JobType names the kind of work (e.g. "train-bert"), for steering by
	// what the scoring model learned of it (Snapshot.Steering); "" none.
	JobType string

	// WaitsFor lists the dependencies the job still waits for (Slurm's
	// --dependency); while any is listed it does not start, blocks nobody,
	// and is explained ReasonDependency. The caller drops each once met.
	WaitsFor []Dependency

	// ArrayID is the array the job is a task of (its first task's ID); 0:
	// none. ArrayMaxRunning is how many of the array's tasks may hold GPUs
	// at once (Slurm's %N); 0: no limit. A task beyond it waits, explained
	// ReasonArrayLimit, and blocks nobody.
	ArrayID         int64
	ArrayMaxRunning int

	// Running jobs only.
	StartedAt time.Time
	GPUs      []int64 // the exact GPUs it holds
	// Stopping is set on a running job that was asked to stop (preempted,
	// canceled, reclaimed) and has not ended yet: its GPUs count as
	// freeing, it is expected to end within its stop grace, and it is
	// never chosen to stop again.
	Stopping bool

	// Checkpoint says the job saves its state when asked to stop (SIGTERM,
	// then StopGrace) and resumes from it: the las and gittins policies may
	// then preempt it when it is demoted (see LASConfig).
	Checkpoint bool
	// StopGrace is how long a checkpointing job is given to save and exit;
	// 0 means DefaultStopGrace.
	StopGrace time.Duration
	// AttainedGPUSeconds is the service the job received in earlier runs
	// (GPUs × seconds run before being preempted); a running job's current
	// run is added from StartedAt.
	AttainedGPUSeconds float64
	// PreemptedAt is when the job was last stopped by the scheduler; zero
	// if never. A pending job has waited since max(SubmittedAt, PreemptedAt).
	PreemptedAt time.Time
	// Learned is the runtime distribution the scoring model learned for
	// jobs like this one from finished jobs; N 0 when there is none.
	Learned RuntimeDist
}

// Dependency is a condition on another job's end that a job waits for.
type Dependency struct {
	Kind  string // DependOK, DependAny, DependNotOK or DependSingleton
	JobID int64
	// Array: JobID is an array's, and the condition is on all its tasks.
	Array bool
}

// Dependency kinds, as Slurm's afterok, afterany, afternotok and singleton.
const (
	DependOK        = "ok"        // the job ends completed
	DependAny       = "any"       // the job ends, however
	DependNotOK     = "notok"     // the job ends otherwise: failed, canceled, timeout
	DependSingleton = "singleton" // an earlier job of the same owner and name ends, however
)

// RuntimeDist is a learned log-normal runtime distribution: ln(runtime in
// seconds) has mean LogMean and standard deviation LogStd, from N runs.
type RuntimeDist struct {
	LogMean, LogStd float64
	N               int64
}

// Booking is a claim on GPUs for a window: a calendar booking, or a client
// agent's pre-warm hold (a short booking that starts now). Other users' jobs
// are never placed on the GPUs a booking needs during its window; the
// owner's jobs start there first. Bookings count against quotas.
type Booking struct {
	ID       int64
	UserID   int64
	UserName string // for explanations: "GPUs booked by ana until …"
	Hold     bool   // a pre-warm hold rather than a calendar booking
	// TeamID is the owner's team, so that an active booking counts against
	// the team's GPUCap as well as the user's; 0: no team.
	TeamID int64

	GPUCount int
	GPUModel string  // "" any, else as Job.GPUModel
	NodeID   int64   // 0 any node
	GPUIDs   []int64 // exact GPUs when the user chose them (then GPUCount == len(GPUIDs))
	// GPUShare, when above 0, makes it a booking of part of one shared GPU
	// (GPUCount 1): the slots of one shared GPU of GPUModel (on NodeID, or
	// among GPUIDs: the slots of a GPU named by the user) that hold this
	// fraction, as a share job of GPUShare takes (SlotsNeeded).
	GPUShare float64

	Start, End time.Time
}

// Principal is a user or a team as fair share and quotas see it.
type Principal struct {
	Name string
	// Share is the fair-share weight (normalised by the core over all
	// principals of the same kind); 0 means 1.
	Share float64
	// GPUCap is the hard cap of concurrent GPUs (running jobs plus active
	// bookings and holds); 0 means no cap.
	GPUCap int
	// Usage is the decayed GPU-seconds used so far (see DecayedUsage).
	Usage float64
}

// Snapshot is everything one pass decides on, read in one transaction.
type Snapshot struct {
	Now      time.Time
	Nodes    []Node
	GPUs     []GPU
	Running  []Job
	Pending  []Job
	Bookings []Booking // active and future, not ended, not canceled
	Users    map[int64]Principal
	Teams    map[int64]Principal
	// Lost is the GPU time lost to preemption over a recent window, beside
	// the GPU time used in it, for LASConfig.MaxLostShare.
	Lost PreemptionLoss
	// Steering is what the scoring model expects of each job type on each
	// GPU model: on a cluster of several models, pending jobs that accept
	// any are steered by it (steer.go). Empty: no steering.
	Steering []SteerCost
}

// SteerCost is what the scoring model expects of one job type on one GPU
// model, for what is known now (no exploration).
type SteerCost struct {
	JobType  string
	GPUModel string // a GPU.Model of the snapshot, exactly
	// Cost is the expected cost in seconds: the learned runtime and the
	// risk the scoring model weighs (μ + λ·σ); lower is better.
	Cost float64
	// Runtime is the learned runtime there: the estimate a steered job
	// that announced none takes.
	Runtime time.Duration
}

// PreemptionLoss is the GPU time lost to preemption (work redone, stop
// grace, restart overhead) and the GPU time jobs held, over the same window.
type PreemptionLoss struct {
	LostGPUSeconds, HeldGPUSeconds float64
	// CommittedGPUSeconds is GPU time that preemptions already decided
	// will lose but LostGPUSeconds does not count yet: the reloads of
	// stopped checkpointing jobs that have not resumed or are reloading
	// now. The cap counts it as lost.
	CommittedGPUSeconds float64
}

// Plan is what one pass decided.
type Plan struct {
	Starts      []Start
	Preemptions []Preemption
	// Pending explains every pending job that does not start, in queue order.
	Pending []Explanation
	// Pins are the GPUs the pass keeps for each booking or hold in force
	// now (its named GPUs, or those it picked for a count), by booking ID,
	// so that the dashboard can show which GPUs are held for whom.
	Pins []Pin
	// Steered lists the pending jobs steered to a GPU model in this pass,
	// by job ID (steer.go).
	Steered []Steered
}

// Steered is a pending job the pass pointed at one GPU model.
type Steered struct {
	JobID    int64
	GPUModel string
	// EstimatedDuration is the estimate the job was scheduled with: the
	// runtime learned on that model, unless the user announced one.
	EstimatedDuration time.Duration
}

// Pin is the GPUs kept for one booking or hold in force.
type Pin struct {
	BookingID int64
	GPUIDs    []int64 // ascending
}

// Start places a job on exact GPUs now.
type Start struct {
	JobID  int64
	GPUIDs []int64
	// Backfilled is set when the job jumped ahead of a blocked job without
	// delaying its reservation.
	Backfilled bool
}

// Preemption asks a running job to stop so that ForJobID can start on a
// later pass, once the GPUs are released.
type Preemption struct {
	JobID    int64
	ForJobID int64
	Reason   string
	// Rule is what chose the job: RulePriority or RuleLASDemotion.
	Rule string
}

// Preemption rules.
const (
	RulePriority    = "priority"     // a preemptible job of lower priority than the head
	RuleLASDemotion = "las_demotion" // a checkpointing job demoted below the head by attained service
)

// Reason codes of an Explanation.
const (
	ReasonNoCapacity      = "no_capacity"       // not enough free GPUs now (wording says where)
	ReasonFragmented      = "fragmented"        // enough GPUs in total but not on one node
	ReasonNoMatchingGPU   = "no_matching_gpu"   // no GPU in the cluster can ever satisfy it
	ReasonUserQuota       = "user_quota"        // "user quota reached 8/8"
	ReasonTeamQuota       = "team_quota"        // "team quota reached 8/8"
	ReasonBehindHigher    = "behind_higher"     // "behind 3 higher-priority jobs"
	ReasonReservedForHead = "reserved_for_head" // starting it would delay the head job's reservation
	ReasonBooked          = "booked"            // "GPUs booked by ana until 14:00"
	ReasonPreempting      = "preempting"        // lower-priority jobs are being stopped for it
	ReasonPaused          = "paused"            // scheduling is stopped (set by the pass, not the core)
	ReasonDependency      = "dependency"        // "waits for job 12 to complete (afterok)"
	ReasonArrayLimit      = "array_limit"       // "array 40 runs at most 8 tasks at once (%8)"
)

// Explanation says why a pending job waits, where it stands, and when it is
// expected to start.
type Explanation struct {
	JobID int64
	// Position is the 1-based place among the jobs still waiting after this
	// plan, in the policy's order (1 = next; started jobs do not count).
	Position int
	Code     string // one of the Reason* codes
	// Reason is a sentence for a person; the instants it names are RFC
	// 3339 UTC, for each reader to see in their own zone.
	Reason string
	// EstimatedStart is when the job is expected to start, from running
	// jobs' estimated ends, bookings and the reservations of the jobs ahead
	// of it; zero when it cannot be estimated (a job that never fits) and
	// beyond position 100.
	EstimatedStart time.Time
	// Score is the job's effective priority under the policy (higher first).
	Score float64
	// Standing is the job's place under an attained-service policy, for a
	// person: "GPU-time level 2 of 4: has had 38 GPU-h; promoted after 12 h
	// waiting"; empty under other policies and beyond position 100.
	Standing string
	// At is the instant the Reason names: the end of the booking for
	// ReasonBooked, the head job's reserved start for
	// ReasonReservedForHead; zero for the other codes.
	At time.Time
}
