package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// RaySyncArgs asks for one look at the Ray jobs we own.
type RaySyncArgs struct {
	Reason string `json:"reason,omitempty"`
}

// Kind is the River job kind.
func (RaySyncArgs) Kind() string { return "ray_sync" }

// InsertOpts: one attempt; the next period or wake-up is the retry.
func (RaySyncArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// RaySyncWorker runs RayExecutor.Sync, periodically and when woken.
type RaySyncWorker struct {
	river.WorkerDefaults[RaySyncArgs]
	deps *Deps
}

// Work syncs once; without a Ray executor it does nothing.
func (w *RaySyncWorker) Work(ctx context.Context, _ *river.Job[RaySyncArgs]) error {
	if ex, ok := w.deps.Executors[models.ExecutorRay].(*RayExecutor); ok {
		return ex.Sync(ctx)
	}
	return nil
}

// Sync probes the cluster (GET /api/version) and records whether it
// answers. While it answers, every run we follow is looked up and its
// status applied to the job (applyRayStatus); runs given up while it was
// away are stopped on it. While it does not, jobs handed over keep their
// GPUs until LostAfter has passed since it went away, and are then lost:
// requeued while their retries last, else failed.
func (e *RayExecutor) Sync(ctx context.Context) error {
	now := e.deps.Now()
	v, verr := e.cfg.Client.Version(ctx)
	errText := ""
	if verr != nil {
		errText = verr.Error()
	}
	cluster, changed, err := models.RecordRayContact(ctx, e.deps.DB.Bun, e.cfg.Client.Base, v.RayVersion, errText, now)
	if err != nil {
		return err
	}
	if changed {
		e.deps.Logger.Info("ray: cluster connection changed", "connected", cluster.Connected, "err", errText)
	}
	runs, err := models.RayRunsToFollow(ctx, e.deps.DB.Bun)
	if err != nil {
		return err
	}
	if verr != nil {
		return e.whileDown(ctx, runs, cluster)
	}
	var errs []error
	for i := range runs {
		if err := e.follow(ctx, &runs[i].RayRun); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// whileDown loses the runs whose grace has passed, and ends the stops
// whose timeout has.
func (e *RayExecutor) whileDown(ctx context.Context, runs []models.SyncedRayRun, c *models.RayCluster) error {
	now := e.deps.Now()
	if c.DownSince == nil {
		return nil
	}
	for i := range runs {
		r := &runs[i].RayRun
		switch {
		case r.State == models.RayRunLost:
		case r.StopRequestedAt != nil && now.Sub(*r.StopRequestedAt) >= e.cfg.StopTimeout:
			if err := e.endUnconfirmed(ctx, r); err != nil {
				return err
			}
		case now.Sub(*c.DownSince) >= e.cfg.LostAfter:
			why := fmt.Sprintf("%s for %s", models.RayUnreachable, now.Sub(*c.DownSince).Round(1e9))
			if err := e.lose(ctx, r, why); err != nil {
				return err
			}
		}
	}
	return nil
}

// follow looks one run up on Ray and applies what it says.
func (e *RayExecutor) follow(ctx context.Context, r *models.RayRun) error {
	now := e.deps.Now()
	if r.State == models.RayRunLost {
		if _, err := e.cfg.Client.Stop(ctx, r.SubmissionID); err != nil && !ray.IsNotFound(err) {
			return fmt.Errorf("jobs: stop lost ray run %s: %w", r.SubmissionID, err)
		}
		return e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			_, fresh, err := e.lockRun(ctx, tx, r)
			if err != nil || fresh.State != models.RayRunLost {
				return err
			}
			fresh.StopRequestedAt = &now
			return models.UpdateRayRun(ctx, tx, fresh, now)
		})
	}
	d, err := e.cfg.Client.Get(ctx, r.SubmissionID)
	if ray.IsNotFound(err) {
		switch {
		case r.State == models.RayRunSubmitted:
			return e.lose(ctx, r, "the Ray head no longer knows the job (restarted?)")
		case now.Sub(r.CreatedAt) >= e.cfg.LostAfter:
			return e.lose(ctx, r, "Ray never accepted the job")
		}
		return nil // the submission is still on its way
	}
	if err != nil {
		return fmt.Errorf("jobs: ray status of %s: %w", r.SubmissionID, err)
	}
	if (d.Status == ray.StatusRunning || ray.IsTerminal(d.Status)) && e.logsDue(r.ID, ray.IsTerminal(d.Status)) {
		logs, err := e.cfg.Client.Logs(ctx, r.SubmissionID)
		if err != nil && !ray.IsNotFound(err) {
			return fmt.Errorf("jobs: ray logs of %s: %w", r.SubmissionID, err)
		}
		if err == nil {
			if err := models.StoreRayLogs(ctx, e.deps.DB.Bun, r.ID, []byte(logs)); err != nil {
				return err
			}
		}
	}
	return e.applyRayStatus(ctx, r, d)
}
