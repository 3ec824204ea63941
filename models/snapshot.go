package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// holdingStates are the states in which a job holds GPUs.
var holdingStates = []string{JobScheduled, JobAllocating, JobRunning}

// Explained is the scheduler's word a pending job carries now, so that a
// pass writes only what changed.
type Explained map[int64]scheduler.Explanation

// LoadSnapshot reads everything the scheduler decides on, as of now, in the
// caller's transaction: nodes, present GPUs, jobs holding GPUs, queued jobs
// (and the explanations they carry), live bookings and holds, and every
// user's and team's share, cap and decayed usage.
func LoadSnapshot(ctx context.Context, db bun.IDB, now time.Time, halfLife time.Duration) (scheduler.Snapshot, Explained, error) {
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
	if err := loadJobs(ctx, db, &s, prev); err != nil {
		return s, nil, err
	}
	// The scoring model's learned runtimes and GPU-model steering (scoring_learned.go).
	if err := applyLearned(ctx, db, &s); err != nil {
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
	var rows []struct {
		GPU
		Held bool `bun:"held"`
	}
	err := db.NewSelect().Model((*GPU)(nil)).ColumnExpr("gpu.*").
		ColumnExpr("EXISTS (SELECT 1 FROM allocations a WHERE a.gpu_id = gpu.id AND a.released_at IS NULL) AS held").
		Where("gpu.present").OrderExpr("gpu.node_id, gpu.idx").Scan(ctx, &rows)
	if err != nil {
		return fmt.Errorf("models: snapshot gpus: %w", err)
	}
	for _, r := range rows {
		group := -1
		if r.NVLinkGroup != nil {
			group = *r.NVLinkGroup
		}
		s.GPUs = append(s.GPUs, scheduler.GPU{
			ID: r.ID, NodeID: r.NodeID, Index: r.Index, Model: r.Model, MemoryMiB: r.MemoryMiB,
			NVLinkGroup: group, Healthy: r.Health != HealthFailed, Drained: r.Drained,
			// Processes on a GPU nobody was given are someone's work outside the scheduler.
			Foreign: !r.Held && len(r.Processes) > 0,
		})
	}
	return nil
}

func loadJobs(ctx context.Context, db bun.IDB, s *scheduler.Snapshot, prev Explained) error {
	var jobs []Job
	if err := db.NewSelect().Model(&jobs).
		Where("state IN (?)", bun.In(append([]string{JobQueued}, holdingStates...))).
		OrderExpr("submitted_at, id").Scan(ctx); err != nil {
		return fmt.Errorf("models: snapshot jobs: %w", err)
	}
	var allocs []Allocation
	if err := db.NewSelect().Model(&allocs).Where("released_at IS NULL").OrderExpr("job_id, gpu_id").Scan(ctx); err != nil {
		return fmt.Errorf("models: snapshot allocations: %w", err)
	}
	held := map[int64][]int64{}
	for _, a := range allocs {
		held[a.JobID] = append(held[a.JobID], a.GPUID)
	}
	for _, j := range jobs {
		sj := SchedulerJob(&j)
		if j.State == JobQueued {
			s.Pending = append(s.Pending, sj)
			e := scheduler.Explanation{JobID: j.ID, Code: j.PendingCode, Reason: j.PendingReason}
			if j.QueuePosition != nil {
				e.Position = *j.QueuePosition
			}
			if j.EstimatedStartAt != nil {
				e.EstimatedStart = *j.EstimatedStartAt
			}
			prev[j.ID] = e
			continue
		}
		sj.GPUs = held[j.ID]
		if j.StartedAt != nil {
			sj.StartedAt = *j.StartedAt
		} else if j.ScheduledAt != nil {
			sj.StartedAt = *j.ScheduledAt
		}
		s.Running = append(s.Running, sj)
	}
	return nil
}

// SchedulerJob is the scheduler's view of a job.
func SchedulerJob(j *Job) scheduler.Job {
	sj := scheduler.Job{
		ID: j.ID, UserID: j.OwnerID, Name: j.Name, GPUCount: j.GPUCount, GPUModel: j.GPUModel,
		AllowMultiNode: j.AllowMultiNode, Priority: j.Priority, Preemptible: j.Preemptible, SubmittedAt: j.SubmittedAt,
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
	sj.Checkpoint, sj.StopGrace, sj.AttainedGPUSeconds = j.Checkpoint, time.Duration(j.StopGraceS)*time.Second, j.AttainedGPUS
	if j.PreemptedAt != nil {
		sj.PreemptedAt = *j.PreemptedAt
	}
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
			GPUCount: r.GPUCount, GPUModel: r.GPUModel, GPUIDs: r.GPUIDs, Start: r.StartsAt, End: r.EndsAt}
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
