package models

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// JobFilter selects jobs to list.
type JobFilter struct {
	States  []string
	OwnerID *int64
	TeamID  *int64
	Limit   int
	// Columns, when set, are the only columns read (pages that show a
	// few fields of many jobs).
	Columns []string
	// Arrays lists one job per array that has tasks in States, standing
	// for them all: its first task holding GPUs, else its first queued one
	// (ArrayStates counts them).
	Arrays bool
	// RunningTasks, with Arrays, lists an array's tasks that hold GPUs each
	// on its own (as Slurm's squeue does); only its queued tasks stand as
	// one.
	RunningTasks bool
}

// ListJobs returns jobs matching f: pending ones in queue order, others
// newest first.
func ListJobs(ctx context.Context, db bun.IDB, f JobFilter) ([]Job, error) {
	var out []Job
	q := f.query(db, &out).OrderExpr("state = 'queued' DESC, queue_position ASC NULLS LAST, submitted_at, id")
	switch {
	case f.Arrays && f.RunningTasks:
		q = q.Where("(array_job_id IS NULL OR state <> 'queued')")
	case f.Arrays:
		q = q.Where("array_job_id IS NULL")
	}
	if f.Limit > 0 {
		q = q.Limit(int64(f.Limit))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: list jobs: %w", err)
	}
	if !f.Arrays {
		return out, nil
	}
	var firsts []Job
	fq := f.query(db, &firsts).Where("array_job_id IS NOT NULL")
	if f.RunningTasks {
		fq = fq.Where("state = 'queued'")
	}
	if err := fq.DistinctOn("array_job_id").OrderExpr("array_job_id, state = 'queued', id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: list arrays: %w", err)
	}
	out = append(out, firsts...)
	slices.SortStableFunc(out, queueOrder)
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// query selects the jobs of f into dst, unordered.
func (f JobFilter) query(db bun.IDB, dst *[]Job) *bun.SelectQuery {
	q := db.NewSelect().Model(dst)
	if len(f.Columns) > 0 {
		q = q.Column(f.Columns...)
	}
	if len(f.States) > 0 {
		q = q.Where("state IN (?)", bun.In(f.States))
	}
	if f.OwnerID != nil {
		q = q.Where("owner_id = ?", *f.OwnerID)
	}
	if f.TeamID != nil {
		q = q.Where("team_id = ?", *f.TeamID)
	}
	return q
}

// queueOrder is ListJobs's order: queued jobs first by place in the queue
// (those without one last), then by submission.
func queueOrder(a, b Job) int {
	if qa, qb := a.State == JobQueued, b.State == JobQueued; qa != qb {
		if qa {
			return -1
		}
		return 1
	}
	switch pa, pb := a.QueuePosition, b.QueuePosition; {
	case pa != nil && pb == nil:
		return -1
	case pa == nil && pb != nil:
		return 1
	case pa != nil && *pa != *pb:
		return *pa - *pb
	}
	return cmp.Or(a.SubmittedAt.Compare(b.SubmittedAt), cmp.Compare(a.ID, b.ID))
}

// ExactPositionsUpTo bounds the work of one pass on a long queue: a job
// waiting beyond this place keeps the position it was last given until its
// reason changes or it comes within it (a new job ahead of ten thousand
// others would otherwise rewrite them all on every pass). Beyond it the
// queue's order is approximate; no ETA is estimated there anyway.
const ExactPositionsUpTo = 100

// explanationChanged reports whether a job's word e is worth writing over
// p: another position (within ExactPositionsUpTo), code, reason, or ETA to
// the minute.
func explanationChanged(p, e scheduler.Explanation) bool {
	far := e.Position > ExactPositionsUpTo && p.Position > ExactPositionsUpTo
	return p.Code != e.Code || p.Reason != e.Reason ||
		(!far && (p.Position != e.Position || !p.EstimatedStart.Truncate(time.Minute).Equal(e.EstimatedStart.Truncate(time.Minute))))
}

// RecordExplanations stores the scheduler's word on every pending job whose
// word changed since prev, in one statement. explained_at says when a job's
// word last changed; score is as of then. (A job's word is cleared when it
// leaves the queue, in MoveJob.) Positions beyond ExactPositionsUpTo are
// rewritten only with a new reason.
func RecordExplanations(ctx context.Context, db bun.IDB, ex []scheduler.Explanation, prev Explained, now time.Time) (int, error) {
	changed := ex[:0:0]
	for _, e := range ex {
		if p, ok := prev[e.JobID]; !ok || explanationChanged(p, e) {
			changed = append(changed, e)
		}
	}
	ex = changed
	type row struct {
		ID       int64      `json:"id"`
		Position int        `json:"position"`
		Code     string     `json:"code"`
		Reason   string     `json:"reason"`
		ETA      *time.Time `json:"eta"`
		Score    float64    `json:"score"`
	}
	rows := make([]row, len(ex))
	for i, e := range ex {
		rows[i] = row{ID: e.JobID, Position: e.Position, Code: e.Code, Reason: e.Reason, Score: e.Score}
		if !e.EstimatedStart.IsZero() {
			t := e.EstimatedStart
			rows[i].ETA = &t
		}
	}
	if len(rows) == 0 {
		return 0, nil
	}
	body, err := json.Marshal(rows)
	if err != nil {
		return 0, fmt.Errorf("models: record explanations: %w", err)
	}
	if _, err := db.ExecContext(ctx, `
UPDATE jobs j SET queue_position = t.position, pending_code = t.code, pending_reason = t.reason,
    estimated_start_at = t.eta, score = t.score, explained_at = ?
FROM jsonb_to_recordset(?::jsonb) AS t(id bigint, position int, code text, reason text, eta timestamptz, score float8)
WHERE j.id = t.id AND j.state = 'queued'
  -- Write only what changed: a pass over a long, quiet queue writes nothing.
  AND (j.queue_position IS DISTINCT FROM t.position OR j.pending_code <> t.code OR j.pending_reason <> t.reason
       -- ETAs drift with the clock (an overrun job "ends now"): a minute's change counts.
       OR date_trunc('minute', j.estimated_start_at) IS DISTINCT FROM date_trunc('minute', t.eta))`, now, string(body)); err != nil {
		return 0, fmt.Errorf("models: record explanations: %w", err)
	}
	return len(rows), nil
}

// PauseExplanations marks every queued job as waiting for scheduling to
// resume, writing only the jobs not marked yet.
func PauseExplanations(ctx context.Context, db bun.IDB, reason string, now time.Time) error {
	if _, err := db.ExecContext(ctx, `UPDATE jobs SET pending_code = ?, pending_reason = ?, explained_at = ?
		WHERE state = 'queued' AND pending_code <> ?`, scheduler.ReasonPaused, reason, now, scheduler.ReasonPaused); err != nil {
		return fmt.Errorf("models: pause explanations: %w", err)
	}
	return nil
}

// SetJobPriority changes a pending or running job's priority.
func SetJobPriority(ctx context.Context, db bun.IDB, id int64, priority int, now time.Time) error {
	res, err := db.NewUpdate().Model((*Job)(nil)).Set("priority = ?", priority).Set("updated_at = ?", now).
		Where("id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: set priority of job %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("models: set priority of job %d: %w", id, ErrNotFound)
	}
	return Signal(ctx, db, ChannelJobs, fmt.Sprint(id))
}
