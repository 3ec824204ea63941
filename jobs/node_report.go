package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// AnswerNodeCommand records an agent's answer to command c (locked by the
// caller) and reports it to the job lifecycle: a started process makes the
// job running, a failed start fails it, and a stop answered "no such
// process" ends the run (the lifecycle decides how, from what was asked).
// An answer to a command already answered, or about a run that is no longer
// the job's current one, changes nothing.
func AnswerNodeCommand(ctx context.Context, lc *models.Lifecycle, tx *models.Tx, c *models.NodeCommand, res api.CommandResult, now time.Time) error {
	changed, err := models.FinishCommand(ctx, tx, c, models.CommandDone, res, now)
	if err != nil || !changed {
		return err
	}
	startID, partStart := c.ID, c
	if c.Kind == models.CommandStop {
		var stop api.StopJob
		if err := json.Unmarshal(c.Payload, &stop); err != nil {
			return fmt.Errorf("jobs: stop command %d: %w", c.ID, err)
		}
		startID = stop.StartCommandID
		if partStart, err = models.GetCommand(ctx, tx, startID); errors.Is(err, models.ErrNotFound) {
			partStart = c // its start is gone: not the job's current run, as currentRun finds
		} else if err != nil {
			return err
		}
	}
	if p := partStart.JobPart(); p != nil {
		return answerPart(ctx, lc, tx, c, partStart, p, res, now)
	}
	j, start, err := currentRun(ctx, lc, tx, c.JobID, startID)
	if err != nil || start == nil {
		return err
	}
	switch c.Kind {
	case models.CommandStart:
		if !res.OK {
			return lc.Finish(ctx, tx, j, models.RunEnd{Refused: "could not start: " + res.Message}, now)
		}
		return lc.Started(ctx, tx, j, fmt.Sprintf("started on the node (pid %d)", res.PID), now)
	case models.CommandStop:
		if res.Running {
			return nil // the run's exit report ends it
		}
		if _, err := models.FinishCommand(ctx, tx, start, models.CommandCanceled, map[string]string{"reason": j.StopReason}, now); err != nil {
			return err
		}
		return lc.Finish(ctx, tx, j, models.RunEnd{Stopped: true}, now)
	}
	return nil
}

// FinishNodeRun records how the run of start command c (locked by the
// caller) ended, and reports it to the job lifecycle: it decides the job's
// end from what was asked of the job (a cancel, a preemption whose stop
// reached the run) and from the exit. A report about a run that is no
// longer the job's current one changes nothing.
func FinishNodeRun(ctx context.Context, lc *models.Lifecycle, tx *models.Tx, c *models.NodeCommand, exit api.JobExit, now time.Time) error {
	if c.Kind != models.CommandStart {
		return fmt.Errorf("jobs: command %d is a %s, not a start: %w", c.ID, c.Kind, models.ErrBadTransition)
	}
	if _, err := models.FinishCommand(ctx, tx, c, models.CommandDone, api.CommandResult{OK: true, Message: "exited"}, now); err != nil {
		return err
	}
	p := c.JobPart()
	run := c.ID
	if p != nil {
		run = runID(c, p)
	}
	j, start, err := currentRun(ctx, lc, tx, c.JobID, run)
	if err != nil || start == nil {
		return err
	}
	end := models.RunEnd{ExitCode: exit.ExitCode, Signal: exit.Signal, Lost: exit.Lost}
	switch {
	case exit.Lost:
		end.Reason = "lost on its node: " + exit.Message
	case exit.ExitCode == nil:
		end.Reason = "ended without an exit code: " + exit.Message
	}
	if p != nil {
		return endPart(ctx, lc, tx, j, run, c, p, end, now)
	}
	if j.StopKind != models.StopNone {
		// The stop reached the run if the agent took its stop command.
		var delivered bool
		err := tx.NewRaw(`SELECT EXISTS (SELECT 1 FROM node_commands WHERE job_id = ? AND kind = ? AND delivered_at IS NOT NULL
			AND (payload->>'start_command_id')::bigint = ?)`, j.ID, models.CommandStop, c.ID).Scan(ctx, &delivered)
		if err != nil {
			return fmt.Errorf("jobs: stop of run %d: %w", c.ID, err)
		}
		end.Stopped = delivered
	}
	return lc.Finish(ctx, tx, j, end, now)
}

// currentRun locks job id and returns it with start command startID when
// that command is the job's current run and the job still holds GPUs;
// nil start otherwise.
func currentRun(ctx context.Context, lc *models.Lifecycle, tx *models.Tx, id, startID int64) (*models.LockedJob, *models.NodeCommand, error) {
	j, err := lc.Lock(ctx, tx, id)
	if err != nil {
		return nil, nil, err
	}
	if j.State != models.JobScheduled && j.State != models.JobAllocating && j.State != models.JobRunning {
		return j, nil, nil
	}
	start, err := currentStart(ctx, tx, j.Job)
	if err != nil || start.ID != startID {
		return j, nil, nil
	}
	return j, start, nil
}

// answerPart takes an agent's answer c to a command about part p (started
// by start) of a multi-node run: a start answered (the next part starts,
// or the job runs once all have; a refused start ends the run), or a stop
// that found no such process (the part has ended).
func answerPart(ctx context.Context, lc *models.Lifecycle, tx *models.Tx, c, start *models.NodeCommand, p *api.JobPart, res api.CommandResult, now time.Time) error {
	run := runID(start, p)
	j, current, err := currentRun(ctx, lc, tx, c.JobID, run)
	if err != nil || current == nil {
		return err
	}
	if c.Kind == models.CommandStart {
		return answerPartStart(ctx, lc, tx, j, c, p, res, now)
	}
	if res.Running {
		return nil // the part's exit report ends it
	}
	return endPart(ctx, lc, tx, j, run, start, p, models.RunEnd{Stopped: true}, now)
}
