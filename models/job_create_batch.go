package models

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// BatchQuerier runs parameterised queries that return one row or many: a
// *pgxpool.Pool, or a Tx's PGX().
type BatchQuerier interface {
	Querier
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// insertJobsSQL inserts queued jobs, a row per element of its parallel
// arrays, in array order; createJobsSQL and resumeJobsSQL complete it.
const insertJobsSQL = `
    INSERT INTO jobs (name, owner_id, team_id, state, command, workdir, env, job_type, gpu_count, gpu_memory_mib,
        gpu_model, allow_multi_node, priority, preemptible, estimated_duration_s, executor, max_retries,
        submitted_at, updated_at, lease_ttl_s, client_ref, checkpoint, stop_grace_s, submit_token, time_limit_s,
        waits_for, gpu_share, share_memory_mib, nodes)
    SELECT name, owner_id, team_id, 'queued', command, workdir, env::jsonb, job_type, gpu_count, gpu_memory_mib,
        gpu_model, allow_multi_node, priority, preemptible, estimated_duration_s, executor, max_retries,
        at, at, lease_ttl_s, client_ref, checkpoint, stop_grace_s, token, time_limit_s, waits_for, gpu_share, share_memory_mib, nodes
    FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[],
        $9::bigint[], $10::text[], $11::bool[], $12::int[], $13::bool[], $14::bigint[], $15::text[], $16::int[],
        $17::timestamptz[], $18::bigint[], $19::text[], $20::bool[], $21::int[], $22::uuid[], $23::bigint[], $24::text[],
        $25::float8[], $26::bigint[], $27::int[])
        AS t(name, owner_id, team_id, command, workdir, env, job_type, gpu_count, gpu_memory_mib, gpu_model,
        allow_multi_node, priority, preemptible, estimated_duration_s, executor, max_retries, at, lease_ttl_s,
        client_ref, checkpoint, stop_grace_s, token, time_limit_s, waits_for, gpu_share, share_memory_mib, nodes)`

// firstEventsSQL writes the first job_events row of every job j inserted.
const firstEventsSQL = `
    INSERT INTO job_events (job_id, to_state, reason, actor_user_id, created_at)
    SELECT id, 'queued', 'submitted', owner_id, submitted_at FROM j`

// createJobsSQL inserts queued jobs and their first job_events rows in one
// statement, ids in array order.
const createJobsSQL = `WITH j AS (` + insertJobsSQL + `
    RETURNING id, owner_id, submitted_at
), e AS (` + firstEventsSQL + `
)
SELECT id FROM j ORDER BY id`

// CreateJobs inserts jobs as queued, each submitted at its nows entry,
// together with their first job_events rows, in one statement: all or none.
// The sequence numbers the rows in the order the statement inserts them,
// which is the arrays' order, so the i-th smallest id is jobs[i]'s.
func CreateJobs(ctx context.Context, q BatchQuerier, jobs []*Job, nows []time.Time) error {
	if len(jobs) != len(nows) {
		return fmt.Errorf("models: create %d jobs with %d submission times", len(jobs), len(nows))
	}
	args, err := jobArrays(jobs, nows)
	if err != nil {
		return fmt.Errorf("models: create jobs: %w", err)
	}
	rows, err := q.Query(ctx, createJobsSQL, args...)
	if err != nil {
		return fmt.Errorf("models: create jobs: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return fmt.Errorf("models: create jobs: %w", err)
	}
	if len(ids) != len(jobs) {
		return fmt.Errorf("models: create jobs: %d ids for %d jobs", len(ids), len(jobs))
	}
	for i, j := range jobs {
		j.ID = ids[i]
	}
	return nil
}

// jobArrays prepares jobs as new (prepareNewJob, each submitted at its nows
// entry) and returns insertJobsSQL's parallel arrays.
func jobArrays(jobs []*Job, nows []time.Time) ([]any, error) {
	n := len(jobs)
	var (
		names, commands, workdirs, envs, types, gpuModels, executors, refs = make([]string, n), make([]string, n),
			make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		owners                         = make([]int64, n)
		teams, mems, durations, ttls   = make([]*int64, n), make([]*int64, n), make([]*int64, n), make([]*int64, n)
		limits                         = make([]*int64, n)
		waits                          = make([]string, n)
		counts, prios, retries, graces = make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
		multi, preemptible, checkpoint = make([]bool, n), make([]bool, n), make([]bool, n)
		ats                            = make([]time.Time, n)
		tokens                         = make([]string, n)
		shares                         = make([]float64, n)
		shareMems                      = make([]int64, n)
		nodes                          = make([]int32, n)
	)
	for i, j := range jobs {
		env, err := prepareNewJob(j, nows[i])
		if err != nil {
			return nil, err
		}
		names[i], owners[i], teams[i], commands[i], workdirs[i], envs[i], types[i] = j.Name, j.OwnerID, j.TeamID, j.Command, j.Workdir, string(env), j.JobType
		counts[i], mems[i], gpuModels[i], multi[i], prios[i], preemptible[i] = int32(j.GPUCount), j.GPUMemoryMiB, j.GPUModel, j.AllowMultiNode, int32(j.Priority), j.Preemptible
		durations[i], executors[i], retries[i], ats[i], ttls[i] = j.EstimatedDurationS, j.Executor, int32(j.MaxRetries), nows[i], j.LeaseTTLS
		refs[i], checkpoint[i], graces[i], tokens[i], limits[i] = j.ClientRef, j.Checkpoint, int32(j.StopGraceS), j.SubmitToken, j.TimeLimitS
		waits[i] = j.WaitsFor
		shares[i], shareMems[i], nodes[i] = j.GPUShare, j.ShareMemoryMiB, int32(j.Nodes)
	}
	return []any{names, owners, teams, commands, workdirs, envs, types, counts, mems, gpuModels,
		multi, prios, preemptible, durations, executors, retries, ats, ttls, refs, checkpoint, graces, tokens, limits, waits, shares, shareMems, nodes}, nil
}
