package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// resumeJobsSQL inserts those of the jobs whose submit_token is not stored
// yet, with their first events, and returns (id, token) of each job it
// inserted and of each stored before it began. A row that a transaction
// still in flight is inserting is waited for, then skipped: it is neither
// inserted nor returned, and jobsByTokenSQL finds it.
const resumeJobsSQL = `WITH j AS (` + insertJobsSQL + `
    ON CONFLICT (submit_token) DO NOTHING
    RETURNING id, owner_id, submitted_at, submit_token
), e AS (` + firstEventsSQL + `
)
SELECT id, submit_token::text FROM j
UNION ALL
SELECT id, submit_token::text FROM jobs WHERE submit_token = ANY($22::uuid[])`

// jobsByTokenSQL returns (id, token) of the stored jobs among tokens.
const jobsByTokenSQL = `SELECT id, submit_token::text FROM jobs WHERE submit_token = ANY($1::uuid[])`

// ResumeJobs completes an insert of jobs (CreateJob, CreateJobs) that may
// or may not have committed, as when the connection dropped before its
// answer came: the jobs already stored under their SubmitToken get their
// ids, the others are inserted as CreateJobs would, so that each job is
// stored exactly once. It is itself safe to repeat. Every job must carry
// the token of the first attempt (prepareNewJob sets it once).
func ResumeJobs(ctx context.Context, q BatchQuerier, jobs []*Job, nows []time.Time) error {
	if len(jobs) != len(nows) {
		return fmt.Errorf("models: resume %d jobs with %d submission times", len(jobs), len(nows))
	}
	args, err := jobArrays(jobs, nows)
	if err != nil {
		return fmt.Errorf("models: resume jobs: %w", err)
	}
	ids := make(map[string]int64, len(jobs))
	if err := collectTokens(ctx, q, ids, resumeJobsSQL, args...); err != nil {
		return err
	}
	var missing []string
	for _, j := range jobs {
		if _, ok := ids[j.SubmitToken]; !ok {
			missing = append(missing, j.SubmitToken)
		}
	}
	if len(missing) > 0 { // committed by a transaction that ran beside the statement
		if err := collectTokens(ctx, q, ids, jobsByTokenSQL, missing); err != nil {
			return err
		}
	}
	for _, j := range jobs {
		id, ok := ids[j.SubmitToken]
		if !ok {
			return fmt.Errorf("models: resume jobs: job %q (token %s) neither inserted nor found", j.Name, j.SubmitToken)
		}
		j.ID = id
	}
	return nil
}

// collectTokens runs sql, whose rows are (id, token), into ids.
func collectTokens(ctx context.Context, q BatchQuerier, ids map[string]int64, sql string, args ...any) error {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("models: resume jobs: %w", err)
	}
	var (
		id    int64
		token string
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &token}, func() error {
		ids[token] = id
		return nil
	})
	if err != nil {
		return fmt.Errorf("models: resume jobs: %w", err)
	}
	return nil
}

// mayBeStored reports whether the jobs of an insert that failed with err
// may be stored: its outcome is unknown (not failedBeforeCommit), or it
// broke the uniqueness of submit tokens (an earlier attempt stored them).
func mayBeStored(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505" && pgErr.ConstraintName == "jobs_submit_token_key"
	}
	return !pgconn.SafeToRetry(err)
}

// failedBeforeCommit reports whether err, the error of a statement run
// outside a transaction, shows that the statement did not commit: the
// server answered with an error (the statement was rolled back), or pgx
// knows it sent nothing. Any other error (a connection lost while waiting
// for the answer, a deadline) leaves the outcome unknown.
func failedBeforeCommit(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) || pgconn.SafeToRetry(err)
}
