package models

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

// CompletionObservation is what a job that ran from its start until end
// teaches the model: its job type, the model of the GPUs of its last run,
// the measured runtime, and the job types of other jobs that held GPUs on
// the same node(s) at some time during the run. ok is false when there is
// nothing to learn (no job type, never started, no GPUs, no time).
func CompletionObservation(ctx context.Context, db bun.IDB, j *Job, end time.Time) (scoring.Observation, bool, error) {
	if strings.TrimSpace(j.JobType) == "" || j.StartedAt == nil || !end.After(*j.StartedAt) {
		return scoring.Observation{}, false, nil
	}
	var run []struct {
		Model  string `bun:"model"`
		NodeID int64  `bun:"node_id"`
	}
	err := db.NewSelect().TableExpr("allocations AS a").ColumnExpr("g.model, g.node_id").
		Join("JOIN gpus AS g ON g.id = a.gpu_id").
		Where("a.job_id = ?", j.ID).
		Where("a.created_at = (SELECT max(created_at) FROM allocations WHERE job_id = ?)", j.ID).
		OrderExpr("g.model, g.node_id").Scan(ctx, &run)
	if err != nil {
		return scoring.Observation{}, false, fmt.Errorf("models: GPUs of job %d's last run: %w", j.ID, err)
	}
	if len(run) == 0 {
		return scoring.Observation{}, false, nil
	}
	nodes := make([]int64, 0, len(run))
	for _, r := range run {
		nodes = append(nodes, r.NodeID)
	}
	var colocated []string
	err = db.NewSelect().TableExpr("allocations AS a").ColumnExpr("DISTINCT j.job_type").
		Join("JOIN gpus AS g ON g.id = a.gpu_id").Join("JOIN jobs AS j ON j.id = a.job_id").
		Where("g.node_id IN (?)", bun.In(slices.Compact(slices.Sorted(slices.Values(nodes))))).Where("a.job_id <> ?", j.ID).
		Where("j.job_type <> ''").Where("a.created_at < ?", end).
		Where("(a.released_at IS NULL OR a.released_at > ?)", *j.StartedAt).
		OrderExpr("j.job_type").Limit(scoring.MaxColocated).Scan(ctx, &colocated)
	if err != nil {
		return scoring.Observation{}, false, fmt.Errorf("models: jobs beside job %d: %w", j.ID, err)
	}
	o := scoring.Observation{JobType: j.JobType, GPUType: run[0].Model, RuntimeS: end.Sub(*j.StartedAt).Seconds(), Colocated: colocated}
	if o.Validate() != nil {
		return scoring.Observation{}, false, nil // e.g. a GPU model name longer than the model keeps
	}
	return o, true, nil
}

// applyLearned puts what the scoring model (configuration c) learned to
// use in the snapshot. Every job that announced no duration gets the learned
// runtime of its job type (LearnedEstimate set): on the model of the GPUs it
// holds when running, else averaged (in log space) over the GPU models it
// may run on; a job type never observed keeps 0, so the scheduler's
// DefaultDuration applies. On a cluster of several GPU models, pending jobs
// that accept any carry their job type, and Snapshot.Steering what each of
// those job types is expected to cost on each model (c.ExpectedCost) and its
// learned runtime there: the core steers them (internal/scheduler,
// steer.go). jobTypes holds the job type of every job that has one.
func applyLearned(ctx context.Context, db bun.IDB, s *scheduler.Snapshot, jobTypes map[int64]string, c scoring.Config) error {
	var ids []int64
	steer := false // several GPU models: jobs that accept any may be steered
	for _, g := range s.GPUs {
		steer = steer || g.Model != s.GPUs[0].Model
	}
	steerable := func(k int, j *scheduler.Job) bool { return steer && k == 0 && j.GPUModel == "" && j.NodeID == 0 }
	for k, list := range [][]scheduler.Job{s.Pending, s.Running} {
		for i := range list {
			if j := &list[i]; j.EstimatedDuration <= 0 || steerable(k, j) {
				ids = append(ids, j.ID)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	typeOf := make(map[int64]string, len(ids))
	var types []string
	for _, id := range ids {
		if t, ok := jobTypes[id]; ok {
			typeOf[id] = t
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		return nil
	}
	st, err := loadScoringState(ctx, db, scoring.Distinct(types), []string{})
	if err != nil {
		return err
	}
	if len(st.Runtime) == 0 {
		return nil
	}
	model := make(map[int64]string, len(s.GPUs))
	var models []string
	for _, g := range s.GPUs {
		model[g.ID] = g.Model
		models = append(models, g.Model)
	}
	models = scoring.Distinct(models)
	known := map[string]bool{}
	for k := range st.Runtime {
		known[k.JobType] = true
	}
	learn := func(j *scheduler.Job, running bool) {
		jt, ok := typeOf[j.ID]
		if !ok || !known[jt] || j.EstimatedDuration > 0 {
			return
		}
		var sum float64
		var n int
		for _, m := range models {
			if running && len(j.GPUs) > 0 && m != model[j.GPUs[0]] {
				continue
			}
			if !running && !strings.Contains(strings.ToLower(m), strings.ToLower(j.GPUModel)) {
				continue
			}
			sum += c.Estimate(st, jt, m).LogMean
			n++
		}
		mean := c.PriorFor(st, jt, "").LogMean
		if n > 0 {
			mean = sum / float64(n)
		}
		j.EstimatedDuration, j.LearnedEstimate = scoring.RuntimeDuration(math.Exp(mean)), true
	}
	steered := map[string]bool{}
	for i := range s.Pending {
		j := &s.Pending[i]
		learn(j, false)
		if jt := typeOf[j.ID]; known[jt] && steerable(0, j) {
			j.JobType = jt
			steered[jt] = true
		}
	}
	for i := range s.Running {
		learn(&s.Running[i], true)
	}
	for _, jt := range slices.Sorted(maps.Keys(steered)) {
		for _, m := range models {
			e := c.Estimate(st, jt, m)
			s.Steering = append(s.Steering, scheduler.SteerCost{JobType: jt, GPUModel: m, Cost: c.ExpectedCost(e), Runtime: scoring.RuntimeDuration(e.Mu)})
		}
	}
	return nil
}
