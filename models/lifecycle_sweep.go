package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Kinds of invariant findings: what the sweep found broken and repaired.
const (
	// FindingHeldByEnded: a live allocation of a job that no longer runs
	// (DESIGN.md invariant 8); it is released.
	FindingHeldByEnded = "held_by_ended"
	// FindingDoubleAllocation: two live allocations on one GPU (invariant
	// 1); the later job is stopped and requeued.
	FindingDoubleAllocation = "double_allocation"
	// FindingHoldsNothing: a job that runs, by its state, on no GPU; it is
	// stopped and requeued.
	FindingHoldsNothing = "holds_nothing"
	// FindingUnhanded: a node job placed long ago that its executor never
	// got; it is handed over again.
	FindingUnhanded = "unhanded"
)

// FindingKinds lists every kind, for metrics.
var FindingKinds = []string{FindingHeldByEnded, FindingDoubleAllocation, FindingHoldsNothing, FindingUnhanded}

// InvariantFinding is one thing the invariant sweep found and repaired.
type InvariantFinding struct {
	bun.BaseModel `bun:"table:invariant_findings"`

	ID      int64     `bun:"id,pk,autoincrement" json:"id"`
	Kind    string    `bun:"kind,notnull" json:"kind"`
	JobID   *int64    `bun:"job_id" json:"job_id,omitempty"`
	GPUID   *int64    `bun:"gpu_id" json:"gpu_id,omitempty"`
	Detail  string    `bun:"detail,notnull" json:"detail"`
	FoundAt time.Time `bun:"found_at,notnull" json:"found_at"`
}

// SweepInvariants looks, in tx, for what must never be (a GPU held by a job
// that does not run, two live allocations on one GPU, a running job on no
// GPU, a node job placed but never handed over for longer than
// unhandedAfter), repairs each through the lifecycle with the job locked
// and its state read again, and records a finding for each. In normal
// operation it finds nothing.
func (lc *Lifecycle) SweepInvariants(ctx context.Context, tx *Tx, unhandedAfter time.Duration, now time.Time) ([]InvariantFinding, error) {
	var found []InvariantFinding
	note := func(kind string, job, gpu *int64, format string, args ...any) {
		found = append(found, InvariantFinding{Kind: kind, JobID: job, GPUID: gpu, Detail: fmt.Sprintf(format, args...), FoundAt: now})
	}
	// GPUs held by jobs that do not run.
	var held []struct {
		JobID int64 `bun:"job_id"`
		GPUID int64 `bun:"gpu_id"`
	}
	if err := tx.NewRaw(`SELECT a.job_id, a.gpu_id FROM allocations a JOIN jobs j ON j.id = a.job_id
		WHERE a.released_at IS NULL AND j.state NOT IN (?) ORDER BY a.job_id, a.gpu_id`, bun.In(holdingStates)).Scan(ctx, &held); err != nil {
		return nil, fmt.Errorf("models: sweep held GPUs: %w", err)
	}
	for _, h := range held {
		j, err := lc.Lock(ctx, tx, h.JobID)
		if err != nil {
			return nil, err
		}
		if j.holds() {
			continue // it runs again since the read
		}
		n, err := release(ctx, tx, j.ID, "released by the invariant sweep: the job had ended ("+j.State+")", CauseRepaired, now)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			note(FindingHeldByEnded, &h.JobID, &h.GPUID, "job %d (%s) held GPU %d", h.JobID, j.State, h.GPUID)
		}
	}
	// Two live allocations on one GPU: the later one's job gives it back.
	var doubles []struct {
		GPUID int64   `bun:"gpu_id"`
		Jobs  []int64 `bun:"jobs,array"`
	}
	if err := tx.NewRaw(`SELECT gpu_id, array_agg(job_id ORDER BY created_at, id) AS jobs FROM allocations
		WHERE released_at IS NULL GROUP BY gpu_id HAVING count(*) > 1`).Scan(ctx, &doubles); err != nil {
		return nil, fmt.Errorf("models: sweep double allocations: %w", err)
	}
	for _, d := range doubles {
		for _, id := range d.Jobs[1:] {
			j, err := lc.Lock(ctx, tx, id)
			if err != nil {
				return nil, err
			}
			reason := fmt.Sprintf("GPU %d was also given to job %d; stopped and requeued by the invariant sweep", d.GPUID, d.Jobs[0])
			if err := lc.requeue(ctx, tx, j, reason, now); err != nil {
				return nil, err
			}
			note(FindingDoubleAllocation, &id, &d.GPUID, "GPU %d held by jobs %v", d.GPUID, d.Jobs)
		}
	}
	// Jobs that run on no GPU.
	var bare []int64
	if err := tx.NewRaw(`SELECT j.id FROM jobs j WHERE j.state IN (?) AND j.stop_kind = ''
		AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.job_id = j.id AND a.released_at IS NULL) ORDER BY j.id`,
		bun.In(holdingStates)).Scan(ctx, &bare); err != nil {
		return nil, fmt.Errorf("models: sweep bare jobs: %w", err)
	}
	for _, id := range bare {
		j, err := lc.Lock(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		if !j.holds() || j.StopKind != StopNone {
			continue
		}
		if err := lc.requeue(ctx, tx, j, "it held no GPU; stopped and requeued by the invariant sweep", now); err != nil {
			return nil, err
		}
		note(FindingHoldsNothing, &id, nil, "job %d was %s on no GPU", id, j.State)
	}
	// Node jobs placed but never handed over.
	var unhanded []int64
	if err := tx.NewRaw(`SELECT j.id FROM jobs j WHERE j.state = ? AND j.executor = ? AND j.start_command_id IS NULL
		AND j.scheduled_at < ? AND NOT EXISTS (SELECT 1 FROM node_commands c WHERE c.job_id = j.id AND c.kind = ?
		AND c.created_at >= j.scheduled_at) ORDER BY j.id`,
		JobScheduled, ExecutorNode, now.Add(-unhandedAfter), CommandStart).Scan(ctx, &unhanded); err != nil {
		return nil, fmt.Errorf("models: sweep unhanded jobs: %w", err)
	}
	for _, id := range unhanded {
		j, err := lc.Lock(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		if j.State != JobScheduled || j.StartCommandID != nil {
			continue
		}
		if err := lc.Rehand(ctx, tx, j, now); err != nil {
			return nil, err
		}
		note(FindingUnhanded, &id, nil, "job %d was placed at %s and never handed to its node", id, j.ScheduledAt.UTC().Format(time.RFC3339))
	}
	if len(found) == 0 {
		return nil, nil
	}
	if _, err := tx.NewInsert().Model(&found).Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: record invariant findings: %w", err)
	}
	details := make([]string, len(found))
	for i, f := range found {
		details[i] = f.Detail
	}
	p := EventPayload{Title: fmt.Sprintf("The invariant sweep repaired %d problems", len(found)),
		Reason: strings.Join(details, "; ")}
	return found, Emit(ctx, tx, NotifyEvent{Name: EventInvariantRepaired, Subject: fmt.Sprintf("sweep@%d", now.UnixMilli()), Payload: p}, now)
}

// requeue stops j's run and puts it back in the queue at its place (the
// sweep's repair): a stop in flight as a preemption, the outcome decided
// when the run ends.
func (lc *Lifecycle) requeue(ctx context.Context, tx *Tx, j *LockedJob, reason string, now time.Time) error {
	if !j.holds() {
		return nil
	}
	return lc.RequestStop(ctx, tx, j, StopRequest{Kind: StopPreempt, Reason: reason}, now)
}

// InvariantFindingCounts returns how many findings the sweep recorded, by
// kind (every kind present, zero or not).
func InvariantFindingCounts(ctx context.Context, db bun.IDB) (map[string]int, error) {
	var rows []struct {
		Kind string `bun:"kind"`
		N    int    `bun:"n"`
	}
	if err := db.NewRaw(`SELECT kind, count(*) AS n FROM invariant_findings GROUP BY kind`).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("models: invariant findings: %w", err)
	}
	out := map[string]int{}
	for _, k := range FindingKinds {
		out[k] = 0
	}
	for _, r := range rows {
		out[r.Kind] = r.N
	}
	return out, nil
}
