package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// RecordMemoryReadings applies the GPU memory overrun policy p to a node's
// readings of share jobs, in tx: a job back within its share ends its
// overrun; a job over it starts one (its owner is told at once,
// EventJobMemoryOver) or continues one, and, when p stops overruns, is
// asked to stop once over for the grace, through the lifecycle, ending
// canceled with a reason that names what it used and its share. A reading
// of a job that holds no slot of a shared GPU on this node is ignored.
func (lc *Lifecycle) RecordMemoryReadings(ctx context.Context, tx *Tx, nodeID int64, rs []api.MemoryReading,
	p scheduler.MemoryOverrunPolicy, now time.Time) ([]api.MemoryAction, error) {
	out := make([]api.MemoryAction, 0, len(rs))
	for _, r := range rs {
		a, err := lc.recordMemory(ctx, tx, nodeID, r, p, now)
		if err != nil {
			return nil, err
		}
		out = append(out, api.MemoryAction{JobID: r.JobID, Action: a})
	}
	return out, nil
}

func (lc *Lifecycle) recordMemory(ctx context.Context, tx *Tx, nodeID int64, r api.MemoryReading,
	p scheduler.MemoryOverrunPolicy, now time.Time) (string, error) {
	j, err := lc.Lock(ctx, tx, r.JobID)
	if errors.Is(err, ErrNotFound) {
		return api.MemoryIgnored, nil
	}
	if err != nil {
		return "", err
	}
	onNode, err := tx.NewSelect().Table("allocations").Join("JOIN gpus g ON g.id = allocations.gpu_id").
		Where("allocations.job_id = ? AND allocations.released_at IS NULL AND g.node_id = ? AND g.kind = ?", j.ID, nodeID, GPUShare).
		Exists(ctx)
	if err != nil {
		return "", fmt.Errorf("models: memory of job %d: %w", j.ID, err)
	}
	if !onNode || j.State != JobRunning {
		return api.MemoryIgnored, nil
	}
	if r.UsedMiB <= r.LimitMiB {
		if _, err := tx.NewDelete().Table("job_memory_overruns").Where("job_id = ?", j.ID).Exec(ctx); err != nil {
			return "", fmt.Errorf("models: end memory overrun of job %d: %w", j.ID, err)
		}
		return api.MemoryUnder, nil
	}
	var since time.Time
	var fresh bool
	err = tx.NewRaw(`
INSERT INTO job_memory_overruns (job_id, since, used_mib, limit_mib, updated_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (job_id) DO UPDATE SET used_mib = excluded.used_mib, limit_mib = excluded.limit_mib, updated_at = excluded.updated_at
RETURNING since, xmax = 0`, j.ID, now, r.UsedMiB, r.LimitMiB, now).Scan(ctx, &since, &fresh)
	if err != nil {
		return "", fmt.Errorf("models: memory overrun of job %d: %w", j.ID, err)
	}
	if fresh {
		if err := emitMemoryOver(ctx, tx, j.Job, r, p, now); err != nil {
			return "", err
		}
	}
	switch {
	case j.Stopping():
		return api.MemoryStopped, nil
	case p.Stops(since, now):
		reason := fmt.Sprintf("stopped: its processes used %s of GPU memory, over its share of %s, for %s (policy gpu_memory_overrun)",
			api.FormatMemoryMiB(r.UsedMiB), api.FormatMemoryMiB(r.LimitMiB), now.Sub(since).Round(time.Second))
		if err := lc.RequestStop(ctx, tx, j, StopRequest{Kind: StopCancel, Reason: reason}, now); err != nil {
			return "", err
		}
		return api.MemoryStopped, nil
	case fresh:
		return api.MemoryWarned, nil
	}
	return api.MemoryOver, nil
}

// emitMemoryOver tells a job's owner it is over its GPU memory share.
func emitMemoryOver(ctx context.Context, tx *Tx, j *Job, r api.MemoryReading, p scheduler.MemoryOverrunPolicy, now time.Time) error {
	pl, err := JobPayload(ctx, tx, j, now)
	if err != nil {
		return err
	}
	pl.Title = fmt.Sprintf("Job %s uses %s of GPU memory, over its share of %s", j.Name,
		api.FormatMemoryMiB(r.UsedMiB), api.FormatMemoryMiB(r.LimitMiB))
	pl.Reason = "it shares its GPU with other jobs; it is stopped if it stays over for " + p.EffectiveGrace().String()
	if p.Action == scheduler.OverrunWarn {
		pl.Reason = "it shares its GPU with other jobs; the policy only warns"
	}
	return Emit(ctx, tx, NotifyEvent{Name: EventJobMemoryOver, Subject: fmt.Sprintf("job:%d:memory:%d", j.ID, now.Unix()),
		Users: []int64{j.OwnerID}, Payload: *pl}, now)
}
