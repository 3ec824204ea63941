package models

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// HistoryStates are the states a job's history lists: the ends.
var HistoryStates = []string{JobCompleted, JobFailed, JobCanceled, JobTimeout}

// HistoryFilter chooses ended jobs, newest end first.
type HistoryFilter struct {
	OwnerID *int64
	TeamID  *int64   // the job's team, else its owner's
	States  []string // some of HistoryStates; empty: all of them
	// From and To bound the end: From <= ended_at < To (zero: open).
	From, To time.Time
	// After continues a listing past the last job of the page before.
	After *HistoryCursor
	Limit int
}

// HistoryCursor is where a page of history ends: the last job's end and id.
type HistoryCursor struct {
	EndedAt time.Time
	ID      int64
}

// ErrBadCursor is returned for a cursor that HistoryCursor did not write.
var ErrBadCursor = errors.New("not a cursor of this listing")

// String encodes the cursor for a query string.
func (c HistoryCursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.EndedAt.UnixMicro(), 10) + "." + strconv.FormatInt(c.ID, 10)))
}

// ParseHistoryCursor reads what HistoryCursor.String wrote.
func ParseHistoryCursor(s string) (HistoryCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return HistoryCursor{}, ErrBadCursor
	}
	at, id, ok := strings.Cut(string(b), ".")
	us, err1 := strconv.ParseInt(at, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil || n <= 0 {
		return HistoryCursor{}, ErrBadCursor
	}
	return HistoryCursor{EndedAt: time.UnixMicro(us).UTC(), ID: n}, nil
}

// HistoryJob is an ended job with what its runs held.
type HistoryJob struct {
	ID            int64      `bun:"id"`
	Name          string     `bun:"name"`
	OwnerID       int64      `bun:"owner_id"`
	OwnerEmail    string     `bun:"owner_email"`
	Team          string     `bun:"team"`
	State         string     `bun:"state"`
	GPUCount      int        `bun:"gpu_count"`
	GPUModel      string     `bun:"gpu_model"`
	Executor      string     `bun:"executor"`
	ExitCode      *int       `bun:"exit_code"`
	FailureReason string     `bun:"failure_reason"`
	SubmittedAt   time.Time  `bun:"submitted_at"`
	StartedAt     *time.Time `bun:"started_at"`
	EndedAt       time.Time  `bun:"ended_at"`
	// RestartCount is how many times it went back to the queue.
	RestartCount int `bun:"restart_count"`
	// ArrayJobID and ArrayTaskID: the array it was a task of, and which.
	ArrayJobID  *int64 `bun:"array_job_id"`
	ArrayTaskID *int   `bun:"array_task_id"`

	// Runs is how many times it held GPUs; Elapsed the time it held them
	// (its runs together); GPUSeconds their GPU time (scheduler.GPUTime);
	// GPUs those of its last run.
	Runs       int           `bun:"-"`
	Elapsed    time.Duration `bun:"-"`
	GPUSeconds float64       `bun:"-"`
	GPUs       api.GPURefs   `bun:"-"`
}

// JobHistory lists the ended jobs f chooses, newest end first, at most
// f.Limit, and the cursor of the page after (nil at the end).
func JobHistory(ctx context.Context, db bun.IDB, f HistoryFilter, now time.Time) ([]HistoryJob, *HistoryCursor, error) {
	states := f.States
	if len(states) == 0 {
		states = HistoryStates
	}
	var out []HistoryJob
	q := db.NewSelect().TableExpr("jobs AS j").Join("JOIN users AS u ON u.id = j.owner_id").
		Join("LEFT JOIN teams AS t ON t.id = coalesce(j.team_id, u.team_id)").
		ColumnExpr(`j.id, j.name, j.owner_id, u.email AS owner_email, coalesce(t.name, '') AS team, j.state, j.gpu_count,
j.gpu_model, j.executor, j.exit_code, j.failure_reason, j.submitted_at, j.started_at, j.ended_at, j.restart_count,
j.array_job_id, j.array_task_id`).
		Where("j.state IN (?)", bun.In(states)).Where("j.ended_at IS NOT NULL")
	if f.OwnerID != nil {
		q = q.Where("j.owner_id = ?", *f.OwnerID)
	}
	if f.TeamID != nil {
		q = q.Where("coalesce(j.team_id, u.team_id) = ?", *f.TeamID)
	}
	if !f.From.IsZero() {
		q = q.Where("j.ended_at >= ?", f.From)
	}
	if !f.To.IsZero() {
		q = q.Where("j.ended_at < ?", f.To)
	}
	if f.After != nil {
		q = q.Where("(j.ended_at, j.id) < (?, ?)", f.After.EndedAt, f.After.ID)
	}
	limit := max(f.Limit, 1)
	q = q.OrderExpr("j.ended_at DESC, j.id DESC").Limit(int64(limit) + 1)
	if err := q.Scan(ctx, &out); err != nil {
		return nil, nil, fmt.Errorf("models: job history: %w", err)
	}
	var next *HistoryCursor
	if len(out) > limit {
		out = out[:limit]
		last := out[limit-1]
		next = &HistoryCursor{EndedAt: last.EndedAt.UTC(), ID: last.ID}
	}
	if err := addRuns(ctx, db, out, now); err != nil {
		return nil, nil, err
	}
	return out, next, nil
}

// addRuns fills in each job's runs from its allocations: one run per
// attempt (created and released together, as readHeld counts them), its
// GPU time by scheduler.GPUTime, and the GPUs of the last.
func addRuns(ctx context.Context, db bun.IDB, jobs []HistoryJob, now time.Time) error {
	if len(jobs) == 0 {
		return nil
	}
	at := make(map[int64]*HistoryJob, len(jobs))
	ids := make([]int64, len(jobs))
	for i := range jobs {
		at[jobs[i].ID], ids[i] = &jobs[i], jobs[i].ID
	}
	var rows []struct {
		JobID      int64      `bun:"job_id"`
		CreatedAt  time.Time  `bun:"created_at"`
		ReleasedAt *time.Time `bun:"released_at"`
		GPUID      int64      `bun:"gpu_id"`
		Node       string     `bun:"node"`
		Index      int        `bun:"idx"`
		Profile    string     `bun:"profile"`
		Fraction   float64    `bun:"fraction"`
	}
	err := db.NewRaw(`SELECT a.job_id, a.created_at, a.released_at, a.gpu_id, n.name AS node, g.idx, g.profile, g.fraction
FROM allocations a JOIN gpus g ON g.id = a.gpu_id JOIN nodes n ON n.id = g.node_id
WHERE a.job_id IN (?) ORDER BY a.job_id, a.created_at, a.released_at NULLS LAST, n.name, g.idx`, bun.In(ids)).Scan(ctx, &rows)
	if err != nil {
		return fmt.Errorf("models: runs of ended jobs: %w", err)
	}
	type attempt struct {
		job   int64
		start time.Time
		end   time.Time
	}
	runs := map[attempt]*scheduler.Held{}
	var order []attempt
	for _, r := range rows {
		k := attempt{job: r.JobID, start: r.CreatedAt}
		if r.ReleasedAt != nil {
			k.end = *r.ReleasedAt
		}
		h, ok := runs[k]
		if !ok {
			h = &scheduler.Held{Start: k.start, End: k.end}
			runs[k] = h
			order = append(order, k)
			at[r.JobID].GPUs = nil // a later run: its GPUs are the ones shown
		}
		// A run's GPUs weigh their mean fraction of a GPU, as heldQuery has it.
		h.Fraction = (h.Fraction*float64(h.GPUs) + r.Fraction) / float64(h.GPUs+1)
		h.GPUs++
		j := at[r.JobID]
		j.GPUs = append(j.GPUs, api.GPURef{ID: r.GPUID, Node: r.Node, Index: r.Index, Profile: r.Profile})
	}
	for _, k := range order {
		h, j := runs[k], at[k.job]
		j.Runs++
		j.GPUSeconds += scheduler.GPUTime(*h, scheduler.UsageWindow{Now: now})
		end := h.End
		if end.IsZero() || end.After(now) {
			end = now
		}
		if end.After(h.Start) {
			j.Elapsed += end.Sub(h.Start)
		}
	}
	return nil
}
