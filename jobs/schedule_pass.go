package jobs

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// QueueScheduler is the River queue of scheduling passes: one worker per
// replica, so passes run one after another (the advisory lock serialises
// replicas).
const QueueScheduler = "scheduler"

// passLockKey is the transaction advisory lock every pass takes first
// (the bytes of "schedule").
const passLockKey int64 = 0x7363686564756c65

// SchedulePassArgs asks for one scheduling pass.
type SchedulePassArgs struct {
	Reason string `json:"reason"`
}

// Kind is the River job kind.
func (SchedulePassArgs) Kind() string { return "schedule_pass" }

// InsertOpts puts passes on their own queue, ahead of other work.
func (SchedulePassArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueScheduler, Priority: 1}
}

// SchedulePassWorker runs one pass of the scheduler.
type SchedulePassWorker struct {
	river.WorkerDefaults[SchedulePassArgs]
	deps *Deps
}

// Work runs the pass.
func (w *SchedulePassWorker) Work(ctx context.Context, job *river.Job[SchedulePassArgs]) error {
	_, err := RunPass(ctx, *w.deps, job.ID, job.Args.Reason)
	return err
}

// RunPass runs one scheduling pass in one transaction: take the advisory
// lock, skip if a newer pass is already queued (it will see everything this
// one would), load the snapshot, run the core, apply the plan (allocations,
// state moves with their events, preemptions, dispatch jobs), record every
// pending job's explanation, and commit; NOTIFY goes out with the commit.
// riverJobID is the pass's own River job (0 when run directly).
func RunPass(ctx context.Context, d Deps, riverJobID int64, reason string) (models.PassStats, error) {
	var stats models.PassStats
	var explained []scheduler.Explanation // what the pass left on pending jobs
	loaded := false
	err := d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		start := time.Now()
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, passLockKey); err != nil {
			return fmt.Errorf("jobs: pass lock: %w", err)
		}
		if riverJobID != 0 {
			var newer bool
			if err := tx.NewRaw(`SELECT EXISTS (SELECT 1 FROM river_job WHERE kind = 'schedule_pass'
				AND state = 'available' AND id > ?)`, riverJobID).Scan(ctx, &newer); err != nil {
				return fmt.Errorf("jobs: look for newer passes: %w", err)
			}
			if newer {
				return models.Signal(ctx, tx, models.ChannelScheduler, PassDone)
			}
		}
		now := d.Now()
		paused, err := models.SchedulingPaused(ctx, tx)
		if err != nil {
			return err
		}
		cfg, err := models.SchedulerConfig(ctx, tx)
		if err != nil {
			return err
		}
		host, _ := os.Hostname()
		stats.At, stats.Reason, stats.Replica = now, reason, host
		if paused {
			if err := models.PauseExplanations(ctx, tx, pausedReason, now); err != nil {
				return err
			}
			return finishPass(ctx, tx, &stats, start)
		}
		sc, err := d.Config.scoringConfig()
		if err != nil {
			return err
		}
		var snap scheduler.Snapshot
		var prev models.Explained
		if d.Snapshots != nil {
			loaded = true
			snap, prev, err = d.Snapshots.Load(ctx, tx, now, time.Duration(cfg.FairShare.HalfLife), sc)
		} else {
			snap, prev, err = models.LoadSnapshot(ctx, tx, now, time.Duration(cfg.FairShare.HalfLife), sc)
		}
		if err != nil {
			return err
		}
		held, err := holdRayJobs(ctx, tx, &snap) // Ray unreachable: its jobs wait (ray_hold.go)
		if err != nil {
			return err
		}
		coreStart := time.Now()
		plan := scheduler.Schedule(snap, cfg)
		stats.CoreMS = msSince(coreStart)
		appendHeld(&plan, held)
		if len(plan.Starts) == 0 && len(plan.Preemptions) == 0 {
			// Nothing starts or stops: the pass only refreshes explanations
			// and its own figures, which the next pass rewrites anyway, so it
			// need not wait for the WAL flush (most passes on a busy queue).
			if _, err := tx.ExecContext(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
				return fmt.Errorf("jobs: pass commit mode: %w", err)
			}
		}
		if err := applyPlan(ctx, d, tx, &snap, plan, cfg.Leases, now); err != nil {
			return err
		}
		pinned, err := models.RecordBookingPins(ctx, tx, plan.Pins)
		if err != nil {
			return err
		}
		if pinned > 0 { // the overview's held and booked tiles move
			if err := models.Signal(ctx, tx, models.ChannelGPUs, "pins"); err != nil {
				return err
			}
		}
		withStanding(plan.Pending)
		explained = plan.Pending
		changed, err := models.RecordExplanations(ctx, tx, plan.Pending, prev, now)
		if err != nil {
			return err
		}
		if changed > 0 {
			if err := models.Signal(ctx, tx, models.ChannelQueue, fmt.Sprint(changed)); err != nil {
				return err
			}
		}
		if err := scheduleBoundaryPass(ctx, d, tx, snap); err != nil {
			return err
		}
		stats.Pending, stats.Started, stats.Preempted = len(plan.Pending), len(plan.Starts), len(plan.Preemptions)
		return finishPass(ctx, tx, &stats, start)
	})
	if d.Snapshots != nil && loaded {
		if err != nil {
			d.Snapshots.Invalidate() // what committed is unknown: read it whole next time
		} else {
			d.Snapshots.Committed(stats.PassesTotal, explained)
		}
	}
	if err != nil {
		return stats, fmt.Errorf("jobs: scheduling pass: %w", err)
	}
	return stats, nil
}

const pausedReason = "scheduling is paused by an admin (POST /api/v1/orchestrator/start resumes it)"

// finishPass records the pass's figures and signals that it committed.
func finishPass(ctx context.Context, tx *models.Tx, stats *models.PassStats, start time.Time) error {
	stats.DurationMS = msSince(start)
	if err := models.RecordPass(ctx, tx, stats); err != nil {
		return err
	}
	return models.Signal(ctx, tx, models.ChannelScheduler, PassDone)
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

// scheduleBoundaryPass queues a pass for the moment the next booking or hold
// starts or ends: time alone changes what may start then, and no NOTIFY
// marks it.
func scheduleBoundaryPass(ctx context.Context, d Deps, tx *models.Tx, s scheduler.Snapshot) error {
	var next time.Time
	for _, b := range s.Bookings {
		for _, t := range []time.Time{b.Start, b.End} {
			if t.After(s.Now) && (next.IsZero() || t.Before(next)) {
				next = t
			}
		}
	}
	if next.IsZero() || d.River == nil {
		return nil
	}
	_, err := d.River.InsertTx(ctx, tx.PGX(), SchedulePassArgs{Reason: "booking boundary"}, &river.InsertOpts{
		Queue: QueueScheduler, Priority: 1, ScheduledAt: next,
		// One waiting pass per boundary, however many passes see it.
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: time.Second},
	})
	if err != nil {
		return fmt.Errorf("jobs: queue the pass at %s: %w", next.Format(time.RFC3339), err)
	}
	return nil
}
