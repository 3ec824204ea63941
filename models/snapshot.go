package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

// holdingStates are the states in which a job holds GPUs.
var holdingStates = []string{JobScheduled, JobAllocating, JobRunning}

// Explained is the scheduler's word a pending job carries now, so that a
// pass writes only what changed.
type Explained map[int64]scheduler.Explanation

// LoadSnapshot reads everything the scheduler decides on, as of now, in the
// caller's transaction: nodes, present GPUs, jobs holding GPUs, queued jobs
// (and the explanations they carry), live bookings and holds, every user's
// and team's share, cap and decayed usage, and what the scoring model
// learned of the jobs' types, read with configuration sc (a valid one: the
// server's, read once at start).
func LoadSnapshot(ctx context.Context, db bun.IDB, now time.Time, halfLife time.Duration, sc scoring.Config) (scheduler.Snapshot, Explained, error) {
	return loadSnapshot(ctx, db, now, halfLife, sc, loadJobs)
}

// jobLoader fills a snapshot's pending and running jobs, their
// explanations and job types.
type jobLoader func(ctx context.Context, db bun.IDB, s *scheduler.Snapshot, prev Explained, types map[int64]string) error

func loadSnapshot(ctx context.Context, db bun.IDB, now time.Time, halfLife time.Duration, sc scoring.Config, jobs jobLoader) (scheduler.Snapshot, Explained, error) {
	s := scheduler.Snapshot{Now: now, Users: map[int64]scheduler.Principal{}, Teams: map[int64]scheduler.Principal{}}
	prev := Explained{}
	nodes, err := ListNodes(ctx, db)
	if err != nil {
		return s, nil, err
	}
	for _, n := range nodes {
		s.Nodes = append(s.Nodes, scheduler.Node{ID: n.ID, Name: n.Name, Up: n.Status == NodeUp, Drained: n.Drained})
	}
	if err := loadGPUs(ctx, db, &s); err != nil {
		return s, nil, err
	}
	types := map[int64]string{}
	if err := jobs(ctx, db, &s, prev, types); err != nil {
		return s, nil, err
	}
	// The scoring model's learned runtimes and steering costs (scoring_learned.go).
	if err := applyLearned(ctx, db, &s, types, sc); err != nil {
		return s, nil, err
	}
	if err := loadBookings(ctx, db, &s); err != nil {
		return s, nil, err
	}
	if err := loadPrincipals(ctx, db, &s, now, halfLife); err != nil {
		return s, nil, err
	}
	if err := loadLost(ctx, db, &s, now); err != nil { // snapshot_lost.go
		return s, nil, err
	}
	return s, prev, nil
}

func loadGPUs(ctx context.Context, db bun.IDB, s *scheduler.Snapshot) error {
	r, closeRows, err := query(ctx, db, `
SELECT g.id, g.node_id, g.idx, g.model, g.memory_mib, coalesce(g.nvlink_group, -1), g.health <> 'failed', g.drained,
       -- Processes on a GPU nobody was given are someone's work outside the scheduler.
       g.processes <> '[]'::jsonb AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.gpu_id = g.id AND a.released_at IS NULL),
       g.profile, CASE WHEN g.kind = 'share' THEN g.parent_slices ELSE 0 END, g.fraction
FROM gpus g WHERE g.present ORDER BY g.node_id, g.idx, g.id`)
	if err != nil {
		return fmt.Errorf("models: snapshot gpus: %w", err)
	}
	defer closeRows()
	for r.Next() {
		var g scheduler.GPU
		if err := r.Scan(&g.ID, &g.NodeID, &g.Index, &g.Model, &g.MemoryMiB, &g.NVLinkGroup, &g.Healthy, &g.Drained, &g.Foreign, &g.Profile, &g.SharedSlots, &g.Fraction); err != nil {
			return fmt.Errorf("models: snapshot gpus: %w", err)
		}
		s.GPUs = append(s.GPUs, g)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("models: snapshot gpus: %w", err)
	}
	return nil
}

// snapshotJobColumns are what the scheduler decides on and the explanation
// a pending job carries (scanJob reads them).
const snapshotJobColumns = `j.id, j.owner_id, j.team_id, j.state, j.name, j.gpu_count, j.gpu_memory_mib, j.gpu_model,
       j.allow_multi_node, j.priority, j.preemptible, j.submitted_at, j.node_id, j.estimated_duration_s,
       j.job_type, coalesce(j.started_at, j.scheduled_at),
       j.queue_position, j.pending_code, j.pending_reason, j.estimated_start_at,
       j.checkpoint, j.stop_grace_s, j.attained_gpu_s, j.preempted_at, j.stop_kind <> '', j.time_limit_s, j.waits_for,
       j.array_job_id, coalesce((SELECT a.max_running FROM job_arrays a WHERE a.id = j.array_job_id), 0),
       j.gpu_share, j.share_memory_mib, j.nodes`

// snapshotJobsQuery reads every queued job and every job holding GPUs, in
// submission order.
const snapshotJobsQuery = `SELECT ` + snapshotJobColumns + `
FROM jobs j
WHERE j.state IN ('queued', 'scheduled', 'allocating', 'running')
ORDER BY j.submitted_at, j.id`

// snapJob is one job as the snapshot reads it.
type snapJob struct {
	job     scheduler.Job // without its GPUs
	state   string
	ex      scheduler.Explanation // a queued job's explanation
	jobType string
	dead    bool // no longer live: SnapshotCache drops it from its order
}

// live reports whether the job belongs in a snapshot: queued or holding GPUs.
func (j *snapJob) live() bool { return j.state == JobQueued || slices.Contains(holdingStates, j.state) }

func scanJob(r rows) (snapJob, error) {
	var (
		out                    snapJob
		sj                     = &out.job
		teamID, mem, node, est *int64
		limit                  *int64
		started, eta, preempt  *time.Time
		position               *int
		graceS                 int64
		waits                  string
		array                  *int64
	)
	if err := r.Scan(&sj.ID, &sj.UserID, &teamID, &out.state, &sj.Name, &sj.GPUCount, &mem, &sj.GPUModel,
		&sj.AllowMultiNode, &sj.Priority, &sj.Preemptible, &sj.SubmittedAt, &node, &est,
		&out.jobType, &started, &position, &out.ex.Code, &out.ex.Reason, &eta,
		&sj.Checkpoint, &graceS, &sj.AttainedGPUSeconds, &preempt, &sj.Stopping, &limit, &waits, &array, &sj.ArrayMaxRunning,
		&sj.GPUShare, &sj.GPUShareMemoryMiB, &sj.Nodes); err != nil {
		return out, fmt.Errorf("models: snapshot jobs: %w", err)
	}
	if teamID != nil {
		sj.TeamID = *teamID
	}
	if mem != nil {
		sj.MinMemoryMiB = *mem
	}
	if node != nil {
		sj.NodeID = *node
	}
	if est != nil {
		sj.EstimatedDuration = time.Duration(*est) * time.Second
	}
	if limit != nil {
		sj.TimeLimit = time.Duration(*limit) * time.Second
	}
	if out.state == JobQueued {
		sj.WaitsFor = ParseWaits(waits)
	}
	if array != nil {
		sj.ArrayID = *array
	}
	if started != nil && out.state != JobQueued {
		sj.StartedAt = *started
	}
	sj.StopGrace = time.Duration(graceS) * time.Second
	if preempt != nil {
		sj.PreemptedAt = *preempt
	}
	out.ex.JobID = sj.ID
	if position != nil {
		out.ex.Position = *position
	}
	if eta != nil {
		out.ex.EstimatedStart = *eta
	}
	return out, nil
}

// addJob puts j into s (pending or running, with the GPUs it holds), its
// explanation into prev and its type into types.
func addJob(s *scheduler.Snapshot, prev Explained, types map[int64]string, held map[int64][]int64, j *snapJob) {
	if j.jobType != "" {
		types[j.job.ID] = j.jobType
	}
	if j.state == JobQueued {
		s.Pending = append(s.Pending, j.job)
		prev[j.job.ID] = j.ex
		return
	}
	sj := j.job
	sj.GPUs = held[sj.ID]
	s.Running = append(s.Running, sj)
}

func loadJobs(ctx context.Context, db bun.IDB, s *scheduler.Snapshot, prev Explained, types map[int64]string) error {
	held, err := liveAllocations(ctx, db)
	if err != nil {
		return err
	}
	r, closeRows, err := query(ctx, db, snapshotJobsQuery)
	if err != nil {
		return fmt.Errorf("models: snapshot jobs: %w", err)
	}
	defer closeRows()
	for r.Next() {
		j, err := scanJob(r)
		if err != nil {
			return err
		}
		addJob(s, prev, types, held, &j)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("models: snapshot jobs: %w", err)
	}
	return nil
}

// liveAllocations returns the GPUs each job holds, in GPU id order.
func liveAllocations(ctx context.Context, db bun.IDB) (map[int64][]int64, error) {
	r, closeRows, err := query(ctx, db, `SELECT job_id, gpu_id FROM allocations WHERE released_at IS NULL ORDER BY job_id, gpu_id`)
	if err != nil {
		return nil, fmt.Errorf("models: snapshot allocations: %w", err)
	}
	defer closeRows()
	held := map[int64][]int64{}
	for r.Next() {
		var job, gpu int64
		if err := r.Scan(&job, &gpu); err != nil {
			return nil, fmt.Errorf("models: snapshot allocations: %w", err)
		}
		held[job] = append(held[job], gpu)
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("models: snapshot allocations: %w", err)
	}
	return held, nil
}

// SchedulerJob is the scheduler's view of a job.
func SchedulerJob(j *Job) scheduler.Job {
	sj := scheduler.Job{
		ID: j.ID, UserID: j.OwnerID, Name: j.Name, GPUCount: j.GPUCount, GPUModel: j.GPUModel,
		AllowMultiNode: j.AllowMultiNode, Nodes: j.Nodes, Priority: j.Priority, Preemptible: j.Preemptible, SubmittedAt: j.SubmittedAt,
	}
	if j.TeamID != nil {
		sj.TeamID = *j.TeamID
	}
	if j.GPUMemoryMiB != nil {
		sj.MinMemoryMiB = *j.GPUMemoryMiB
	}
	if j.NodeID != nil {
		sj.NodeID = *j.NodeID
	}
	if j.EstimatedDurationS != nil {
		sj.EstimatedDuration = time.Duration(*j.EstimatedDurationS) * time.Second
	}
	if j.TimeLimitS != nil {
		sj.TimeLimit = time.Duration(*j.TimeLimitS) * time.Second
	}
	if j.State == JobQueued {
		sj.WaitsFor = ParseWaits(j.WaitsFor)
	}
	if j.ArrayJobID != nil {
		sj.ArrayID = *j.ArrayJobID // its %N is the array's (job_arrays)
	}
	sj.Checkpoint, sj.StopGrace, sj.AttainedGPUSeconds = j.Checkpoint, time.Duration(j.StopGraceS)*time.Second, j.AttainedGPUS
	if j.PreemptedAt != nil {
		sj.PreemptedAt = *j.PreemptedAt
	}
	sj.Stopping = j.Stopping()
	return sj
}

func loadBookings(ctx context.Context, db bun.IDB, s *scheduler.Snapshot) error {
	var rows []struct {
		Booking
		UserEmail string  `bun:"user_email"`
		UserName  string  `bun:"user_name"`
		TeamID    *int64  `bun:"team_id"`
		GPUIDs    []int64 `bun:"gpu_ids,array"`
	}
	err := db.NewSelect().Model((*Booking)(nil)).ColumnExpr("booking.*").
		ColumnExpr("u.email AS user_email, u.name AS user_name, u.team_id").
		ColumnExpr("ARRAY(SELECT bg.gpu_id FROM booking_gpus bg WHERE bg.booking_id = booking.id ORDER BY bg.gpu_id) AS gpu_ids").
		Join("JOIN users AS u ON u.id = booking.user_id").
		Where("booking.canceled_at IS NULL").Where("booking.ends_at > ?", s.Now).
		OrderExpr("booking.starts_at, booking.id").Scan(ctx, &rows)
	if err != nil {
		return fmt.Errorf("models: snapshot bookings: %w", err)
	}
	for _, r := range rows {
		name := r.UserName
		if name == "" {
			name, _, _ = strings.Cut(r.UserEmail, "@")
		}
		b := scheduler.Booking{ID: r.ID, UserID: r.UserID, UserName: name, Hold: r.Kind == BookingKindHold,
			GPUCount: r.GPUCount, GPUModel: r.GPUModel, GPUIDs: r.GPUIDs, GPUShare: r.GPUShare, Start: r.StartsAt, End: r.EndsAt}
		if r.NodeID != nil {
			b.NodeID = *r.NodeID
		}
		if r.TeamID != nil {
			b.TeamID = *r.TeamID
		}
		s.Bookings = append(s.Bookings, b)
	}
	return nil
}
