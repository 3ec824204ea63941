package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// IdleReclaimArgs asks for one run of the idle policy.
type IdleReclaimArgs struct{}

// Kind is the River job kind.
func (IdleReclaimArgs) Kind() string { return "idle_reclaim" }

// IdleReclaimWorker applies the idle policy: from each running job's GPU
// telemetry it warns the owner (gpu.idle), forgets the warning when
// activity returns, and after the grace period asks the job lifecycle to
// reclaim it (it ends canceled, with reason "reclaimed: idle for …", unless
// its owner canceled it first) and tells the owner (gpu.reclaimed).
type IdleReclaimWorker struct {
	river.WorkerDefaults[IdleReclaimArgs]
	deps *Deps
}

// Work runs the policy once.
func (w *IdleReclaimWorker) Work(ctx context.Context, _ *river.Job[IdleReclaimArgs]) error {
	return ApplyIdlePolicy(ctx, w.deps)
}

// ApplyIdlePolicy runs the idle policy once, each decision in its own transaction.
func ApplyIdlePolicy(ctx context.Context, d *Deps) error {
	cfg, err := models.SchedulerConfig(ctx, d.DB.Bun)
	if err != nil {
		return err
	}
	p := cfg.IdlePolicy
	if !p.Active() {
		warned, err := models.IdleWarnedCount(ctx, d.DB.Bun)
		if err != nil || warned == 0 {
			return err // nothing to do, nor to undo
		}
	}
	now := d.Now()
	window := max(time.Duration(p.IdleAfter+p.IdleGrace)+5*time.Minute, 10*time.Minute)
	allocs, err := models.IdleAllocations(ctx, d.DB.Bun, p.Threshold(), window, now)
	if err != nil {
		return err
	}
	for _, dec := range scheduler.DecideIdle(p, allocs, now) {
		err := d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error { return applyIdle(ctx, d, tx, p, dec, now) })
		if err != nil {
			return fmt.Errorf("jobs: idle policy on job %d: %w", dec.JobID, err)
		}
		if dec.Action != "reset" {
			d.Logger.Info("idle policy", "job", dec.JobID, "action", dec.Action, "idle_since", dec.IdleSince, "reason", dec.Reason)
		}
	}
	return nil
}

func applyIdle(ctx context.Context, d *Deps, tx *models.Tx, p scheduler.IdlePolicy, dec scheduler.IdleDecision, now time.Time) error {
	lj, err := d.Lifecycle.Lock(ctx, tx, dec.JobID)
	if err != nil {
		return err
	}
	j := lj.Job
	if j.State != models.JobRunning || (dec.Action == scheduler.IdleRelease && j.Stopping()) {
		return nil // moved on, or already asked to end: one reclaim, told once
	}
	if dec.Action == "reset" {
		return models.RecordIdleWarning(ctx, tx, j.ID, nil, now)
	}
	payload, err := models.JobPayload(ctx, tx, j, now)
	if err != nil {
		return err
	}
	payload.Idle = &models.EventIdle{IdleSinceAt: dec.IdleSince.UTC(), IdleS: int64(now.Sub(dec.IdleSince).Seconds()), ThresholdPct: p.Threshold()}
	idleFor := now.Sub(dec.IdleSince).Round(time.Second)
	switch dec.Action {
	case scheduler.IdleWarn:
		if err := models.RecordIdleWarning(ctx, tx, j.ID, &dec.IdleSince, now); err != nil {
			return err
		}
		payload.Title = fmt.Sprintf("Your %s on %s %s been idle for %s", words.Count(j.GPUCount, "GPU"), j.Name, words.Plural(j.GPUCount, "has"), idleFor)
		if !dec.ReclaimAt.IsZero() {
			at := dec.ReclaimAt.UTC()
			payload.Idle.ReclaimAt = &at
			busy := "they get"
			if j.GPUCount == 1 {
				busy = "it gets"
			}
			payload.Reason = fmt.Sprintf("the %s will be given back at %s unless %s busy", words.Plural(j.GPUCount, "GPU"), at.Format(time.RFC3339), busy)
		}
		event := models.EventGPUIdle
		if models.SessionKindOf(j.JobType) != "" {
			event, payload.Path = models.EventSessionIdle, api.SessionPath(j.ID)
			payload.Title = fmt.Sprintf("Your %s session %d has been idle for %s", models.SessionKindOf(j.JobType), j.ID, idleFor)
			if payload.Idle.ReclaimAt != nil {
				payload.Reason = fmt.Sprintf("it will be stopped at %s unless it is used; saved files stay", payload.Idle.ReclaimAt.Format(time.RFC3339))
			}
		}
		return models.Emit(ctx, tx, models.NotifyEvent{Name: event, Subject: fmt.Sprintf("job:%d@%d", j.ID, now.UnixMilli()),
			Users: []int64{j.OwnerID}, Payload: *payload}, now)
	case scheduler.IdleRelease:
		if err := d.Lifecycle.RequestStop(ctx, tx, lj, models.StopRequest{Kind: models.StopReclaim, Reason: dec.Reason}, now); err != nil {
			return err
		}
		if err := models.RecordReclaim(ctx, tx, j.ID, j.GPUCount, now); err != nil {
			return err
		}
		payload.Title = fmt.Sprintf("%s of %s %s given back", words.Count(j.GPUCount, "idle GPU"), j.Name, words.Plural(j.GPUCount, "was"))
		payload.Reason = dec.Reason
		event := models.EventGPUReclaimed
		if kind := models.SessionKindOf(j.JobType); kind != "" {
			event, payload.Path = models.EventSessionStopped, "/sessions"
			payload.Title = fmt.Sprintf("Your idle %s session %d was stopped", kind, j.ID)
			payload.Text = models.SessionFilesText(payload.Job.GPUs, j.Workdir)
		}
		return models.Emit(ctx, tx, models.NotifyEvent{Name: event, Subject: fmt.Sprintf("job:%d", j.ID),
			Users: []int64{j.OwnerID}, Payload: *payload}, now)
	}
	return nil
}

func idleReclaimPeriodic(cfg Config) *river.PeriodicJob {
	every := cfg.Notify.IdleEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	return river.NewPeriodicJob(river.PeriodicInterval(every),
		func() (river.JobArgs, *river.InsertOpts) { return IdleReclaimArgs{}, nil },
		&river.PeriodicJobOpts{ID: "idle_reclaim"})
}
