package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// States of a Ray run (ray_runs.state).
const (
	RayRunSubmitting = "submitting" // row written, Ray's answer to the submission not seen yet
	RayRunSubmitted  = "submitted"  // Ray accepted it; the sync follows its status
	RayRunDone       = "done"       // ended; the job has moved on
	RayRunLost       = "lost"       // given up while Ray was unreachable; stopped on Ray when it is back
)

// RayRun is one hand-over of a job to the Ray cluster: one Ray submission.
type RayRun struct {
	bun.BaseModel `bun:"table:ray_runs,alias:rr"`

	ID              int64      `bun:"id,pk,autoincrement" json:"id"`
	JobID           int64      `bun:"job_id,notnull" json:"job_id"`
	Attempt         int        `bun:"attempt,notnull" json:"attempt"`
	SubmissionID    string     `bun:"submission_id,notnull" json:"submission_id"`
	State           string     `bun:"state,notnull" json:"state"`
	RayStatus       string     `bun:"ray_status,notnull" json:"ray_status"`
	Message         string     `bun:"message,notnull" json:"message"`
	StopState       string     `bun:"stop_state,notnull" json:"stop_state,omitempty"`
	StopReason      string     `bun:"stop_reason,notnull" json:"stop_reason,omitempty"`
	StopRequestedAt *time.Time `bun:"stop_requested_at" json:"stop_requested_at,omitempty"`
	CreatedAt       time.Time  `bun:"created_at,notnull" json:"created_at"`
	UpdatedAt       time.Time  `bun:"updated_at,notnull" json:"updated_at"`
}

// OpenRayRun returns job's live run (submitting or submitted), creating
// the next attempt if there is none, with the submission id name(attempt):
// a retried dispatch finds the same run and so the same submission id. The
// caller holds the job's row lock.
func OpenRayRun(ctx context.Context, db bun.IDB, jobID int64, name func(attempt int) string, now time.Time) (*RayRun, error) {
	r := new(RayRun)
	err := db.NewSelect().Model(r).Where("job_id = ? AND state IN (?)", jobID, bun.In([]string{RayRunSubmitting, RayRunSubmitted})).
		OrderExpr("attempt DESC").Limit(1).Scan(ctx)
	if err == nil {
		return r, nil
	}
	if err := notFound(err, "live ray run"); !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	var last int
	if err := db.NewRaw("SELECT coalesce(max(attempt), 0) FROM ray_runs WHERE job_id = ?", jobID).Scan(ctx, &last); err != nil {
		return nil, fmt.Errorf("models: attempts of job %d: %w", jobID, err)
	}
	r = &RayRun{JobID: jobID, Attempt: last + 1, SubmissionID: name(last + 1), State: RayRunSubmitting, CreatedAt: now, UpdatedAt: now}
	if _, err := db.NewInsert().Model(r).Returning("*").Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: open ray run of job %d: %w", jobID, err)
	}
	return r, nil
}

// LatestRayRun returns job's newest run, or ErrNotFound.
func LatestRayRun(ctx context.Context, db bun.IDB, jobID int64) (*RayRun, error) {
	r := new(RayRun)
	err := db.NewSelect().Model(r).Where("job_id = ?", jobID).OrderExpr("attempt DESC").Limit(1).Scan(ctx)
	return r, notFound(err, fmt.Sprintf("ray run of job %d", jobID))
}

// UpdateRayRun stores r's state, Ray status, message and stop request.
func UpdateRayRun(ctx context.Context, db bun.IDB, r *RayRun, now time.Time) error {
	r.UpdatedAt = now
	_, err := db.NewUpdate().Model(r).Column("state", "ray_status", "message", "stop_state", "stop_reason", "stop_requested_at", "updated_at").
		WherePK().Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: update ray run %d: %w", r.ID, err)
	}
	return nil
}

// SyncedRayRun is a run the sync follows, with its job.
type SyncedRayRun struct {
	RayRun
	JobState string `bun:"job_state"`
}

// RayRunsToFollow returns the runs the sync must look at: those handed
// over or being handed over, and lost runs not yet stopped on Ray.
func RayRunsToFollow(ctx context.Context, db bun.IDB) ([]SyncedRayRun, error) {
	var out []SyncedRayRun
	err := db.NewSelect().Model((*RayRun)(nil)).ColumnExpr("rr.*").ColumnExpr("j.state AS job_state").
		Join("JOIN jobs j ON j.id = rr.job_id").
		Where("rr.state IN (?) OR (rr.state = ? AND rr.stop_requested_at IS NULL)",
			bun.In([]string{RayRunSubmitting, RayRunSubmitted}), RayRunLost).
		OrderExpr("rr.id").Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("models: ray runs to follow: %w", err)
	}
	return out, nil
}
