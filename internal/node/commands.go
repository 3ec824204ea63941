package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// commandWait is how long one command long-poll may wait on the server.
const commandWait = 20 * time.Second

// commands long-polls the node's commands and carries each out, answering
// it by id. A command delivered again (its answer was lost) is answered
// again without being carried out twice.
func (a *Agent) commands(ctx context.Context, id int64) error {
	for ctx.Err() == nil {
		resp, err := a.Client.Commands(ctx, id, commandWait)
		if err != nil {
			return err
		}
		for _, c := range resp.Commands {
			res := a.carryOut(c)
			if err := a.Client.AnswerCommand(ctx, id, c.ID, res); err != nil && !gone(err) {
				return fmt.Errorf("node: answer command %d: %w", c.ID, err)
			}
		}
	}
	return ctx.Err()
}

func (a *Agent) carryOut(c api.NodeCommand) api.CommandResult {
	switch {
	case c.Kind == "start" && c.Start != nil:
		pid, err := a.runs.Load().start(c.ID, c.Start)
		if err != nil {
			a.Logger.Warn("node: could not start a job", "job", c.JobID, "err", err)
			return api.CommandResult{OK: false, Message: err.Error()}
		}
		a.Logger.Info("node: job started", "job", c.JobID, "pid", pid, "gpus", c.Start.GPUs)
		res := api.CommandResult{OK: true, PID: pid, Running: true}
		partResult(&res, c.Start.Part)
		return res
	case c.Kind == "stop" && c.Stop != nil:
		grace := time.Duration(c.Stop.GraceS) * time.Second
		running := a.runs.Load().stopRun(c.Stop.StartCommandID, grace)
		a.Logger.Info("node: job stopping", "job", c.JobID, "reason", c.Stop.Reason, "running_here", running)
		return api.CommandResult{OK: true, Running: running}
	}
	return api.CommandResult{OK: false, Message: fmt.Sprintf("this agent does not know command %q", c.Kind)}
}

// agentReporter sends a run's output and exit for the agent.
type agentReporter struct{ a *Agent }

var errNotRegistered = errors.New("node: not registered with the control plane yet")

func (r agentReporter) ship(ctx context.Context, cmd int64, chunk api.LogChunk) error {
	id := r.a.NodeID()
	if id == 0 {
		return errNotRegistered
	}
	return r.a.Client.ShipLog(ctx, id, cmd, chunk)
}

func (r agentReporter) exited(ctx context.Context, cmd int64, exit api.JobExit) error {
	id := r.a.NodeID()
	if id == 0 {
		return errNotRegistered
	}
	return r.a.Client.ReportExit(ctx, id, cmd, exit)
}

func (r agentReporter) freshen(ctx context.Context) { r.a.freshen(ctx) }
