package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// AnswerNodeCommand records an agent's answer to command c (locked by the
// caller) and moves its job on: a started process makes the job running, a
// failed start fails it, and a stop answered "no such process" ends it as
// the stop asked. An answer to a command already answered changes nothing.
func AnswerNodeCommand(ctx context.Context, tx *models.Tx, c *models.NodeCommand, res apiclient.CommandResult, now time.Time) error {
	changed, err := models.FinishCommand(ctx, tx, c, models.CommandDone, res, now)
	if err != nil || !changed {
		return err
	}
	j, start, current, err := currentRun(ctx, tx, c)
	if err != nil || !current {
		return err
	}
	switch c.Kind {
	case models.CommandStart:
		if !res.OK {
			return finishNodeJob(ctx, tx, j, models.JobFailed, "could not start: "+res.Message, nil, now)
		}
		if j.State == models.JobAllocating {
			return moveJob(ctx, tx, j.ID, models.JobRunning, fmt.Sprintf("started on the node (pid %d)", res.PID), now)
		}
	case models.CommandStop:
		if res.Running {
			return nil // the exit report ends it
		}
		var stop apiclient.StopJob
		if err := json.Unmarshal(c.Payload, &stop); err != nil {
			return fmt.Errorf("jobs: stop command %d: %w", c.ID, err)
		}
		if _, err := models.FinishCommand(ctx, tx, start, models.CommandCanceled, map[string]string{"reason": stop.Reason}, now); err != nil {
			return err
		}
		return finishNodeJob(ctx, tx, j, stop.State, stop.Reason, nil, now)
	}
	return nil
}

// FinishNodeRun records how the run of start command c (locked by the
// caller) ended: the job ends as a stop asked (canceled, preempted, lost),
// else completed on exit code 0 and failed otherwise. A report about a run
// that is no longer the job's current one changes nothing.
func FinishNodeRun(ctx context.Context, tx *models.Tx, c *models.NodeCommand, exit apiclient.JobExit, now time.Time) error {
	if c.Kind != models.CommandStart {
		return fmt.Errorf("jobs: command %d is a %s, not a start: %w", c.ID, c.Kind, models.ErrBadTransition)
	}
	if _, err := models.FinishCommand(ctx, tx, c, models.CommandDone, apiclient.CommandResult{OK: true, Message: "exited"}, now); err != nil {
		return err
	}
	j, _, current, err := currentRun(ctx, tx, c)
	if err != nil || !current {
		return err
	}
	state, reason := models.JobCompleted, "exited with code 0"
	switch {
	case exit.Lost:
		state, reason = StateLost, "lost on its node: "+exit.Message
	case exit.ExitCode == nil:
		state, reason = models.JobFailed, "ended without an exit code: "+exit.Message
	case *exit.ExitCode != 0:
		state, reason = models.JobFailed, fmt.Sprintf("exited with code %d", *exit.ExitCode)
		if exit.Signal != "" {
			reason = fmt.Sprintf("killed by %s (exit code %d)", exit.Signal, *exit.ExitCode)
		}
	}
	stop := new(models.NodeCommand)
	err = tx.NewSelect().Model(stop).Where("job_id = ? AND kind = ? AND id > ?", j.ID, models.CommandStop, c.ID).
		OrderExpr("id").Limit(1).Scan(ctx)
	if err == nil {
		var s apiclient.StopJob
		if json.Unmarshal(stop.Payload, &s) == nil && s.State != "" {
			state, reason = s.State, s.Reason
		}
	}
	return finishNodeJob(ctx, tx, j, state, reason, exit.ExitCode, now)
}

// currentRun locks c's job and reports whether c belongs to the job's
// current run: its newest start, with the job still placed or running.
func currentRun(ctx context.Context, tx *models.Tx, c *models.NodeCommand) (*models.Job, *models.NodeCommand, bool, error) {
	j := new(models.Job)
	if err := tx.NewSelect().Model(j).Where("id = ?", c.JobID).For("UPDATE").Scan(ctx); err != nil {
		return nil, nil, false, fmt.Errorf("jobs: job %d of command %d: %w", c.JobID, c.ID, err)
	}
	start := c
	if c.Kind != models.CommandStart {
		var err error
		if start, err = models.LatestCommand(ctx, tx, j.ID, models.CommandStart); err != nil {
			return nil, nil, false, err
		}
		var stop apiclient.StopJob
		if json.Unmarshal(c.Payload, &stop) != nil || stop.StartCommandID != start.ID {
			return j, start, false, nil
		}
	} else if latest, err := models.LatestCommand(ctx, tx, j.ID, models.CommandStart); err != nil || latest.ID != c.ID {
		return j, start, false, err
	}
	live := j.State == models.JobScheduled || j.State == models.JobAllocating || j.State == models.JobRunning
	return j, start, live, nil
}
