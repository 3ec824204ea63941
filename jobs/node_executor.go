package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// DefaultStopGrace is how long a stopped job has between SIGTERM and SIGKILL.
const DefaultStopGrace = 10 * time.Second

// NodeExecutor runs jobs through the node agents, as the job lifecycle's
// adapter: handing a job over queues a start command for the agent of its
// node, stopping it a stop command, both in the lifecycle's transaction.
// Agents long-poll their commands and answer each (AnswerNodeCommand,
// FinishNodeRun), which reports back to the lifecycle.
type NodeExecutor struct {
	// StopGrace is the time between SIGTERM and SIGKILL when stopping.
	StopGrace time.Duration
}

// NewNodeExecutor returns the node executor and registers it in d's
// executors under models.ExecutorNode.
func NewNodeExecutor(d *Deps) *NodeExecutor {
	e := &NodeExecutor{StopGrace: DefaultStopGrace}
	if d.Executors == nil {
		d.Executors = Executors{}
	}
	d.Executors[models.ExecutorNode] = e
	return e
}

// Hand implements models.Executor: it queues the start command for the node
// of j's GPUs, with what the agent needs to run it as its owner. A job whose
// GPUs span nodes runs as one part per node (node_parts.go): the first
// part's start is queued now, the others as each start is answered.
func (e *NodeExecutor) Hand(ctx context.Context, tx *models.Tx, j *models.Job, gpus []models.JobGPU, now time.Time) (models.Handover, error) {
	if len(gpus) == 0 {
		return models.Handover{}, fmt.Errorf("jobs: hand job %d to its node: it holds no GPUs", j.ID)
	}
	owner, err := models.GetUser(ctx, tx, j.OwnerID)
	if err != nil {
		return models.Handover{}, err
	}
	start := api.StartJob{JobID: j.ID, Name: j.Name, Command: j.Command, Workdir: j.Workdir,
		Env: restartEnv(j), Owner: owner.Email}
	if owner.UnixUser != nil {
		start.UnixUser = *owner.UnixUser
	}
	if start.Array, err = arrayTask(ctx, tx, j); err != nil {
		return models.Handover{}, err
	}
	start.Session = sessionStart(j)
	if groups := nodeGroups(gpus); len(groups) > 1 {
		return handParts(ctx, tx, j, start, groups, now)
	}
	setGPUs(&start, gpus)
	cmd, err := models.EnqueueCommand(ctx, tx, gpus[0].NodeID, j.ID, models.CommandStart, start, now)
	if err != nil {
		return models.Handover{}, err
	}
	return models.Handover{Taken: true, Detail: "sent to node " + gpus[0].NodeName, StartCommandID: &cmd.ID}, nil
}

// Stop implements models.Executor. A start its agent has not picked up yet
// is withdrawn, and the job ends at once; otherwise a stop command for the
// run is queued, and the run's exit report ends the job. Every part of a
// multi-node run is stopped; the job ends once all have.
func (e *NodeExecutor) Stop(ctx context.Context, tx *models.Tx, j *models.Job, grace time.Duration, now time.Time) (bool, error) {
	start, err := currentStart(ctx, tx, j)
	if errors.Is(err, models.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if start.State == models.CommandPending && start.DeliveredAt == nil {
		if _, err := models.FinishCommand(ctx, tx, start, models.CommandCanceled, map[string]string{"reason": j.StopReason}, now); err != nil {
			return false, err
		}
		return true, nil
	}
	if grace <= 0 {
		grace = e.StopGrace
	}
	if p := start.JobPart(); p != nil {
		return e.stopRun(ctx, tx, j, runID(start, p), grace, now)
	}
	stop := api.StopJob{StartCommandID: start.ID, State: string(j.StopKind), Reason: j.StopReason, GraceS: int(grace.Seconds())}
	_, err = models.EnqueueCommand(ctx, tx, start.NodeID, j.ID, models.CommandStop, stop, now)
	return false, err
}

// currentStart is the start command of j's current run: the one the
// lifecycle recorded, else (a job placed before it recorded them) the
// newest.
func currentStart(ctx context.Context, tx *models.Tx, j *models.Job) (*models.NodeCommand, error) {
	if j.StartCommandID != nil {
		return models.GetCommand(ctx, tx, *j.StartCommandID)
	}
	return models.LatestCommand(ctx, tx, j.ID, models.CommandStart)
}

// arrayTask is which task of which array j is; nil when it is no task.
func arrayTask(ctx context.Context, tx *models.Tx, j *models.Job) (*api.ArrayTask, error) {
	if j.ArrayJobID == nil || j.ArrayTaskID == nil {
		return nil, nil
	}
	a, err := models.GetArray(ctx, tx, *j.ArrayJobID)
	if err != nil {
		return nil, err
	}
	return &api.ArrayTask{JobID: a.ID, TaskID: *j.ArrayTaskID, TaskCount: a.TaskCount, TaskMin: a.TaskMin, TaskMax: a.TaskMax}, nil
}

// stopRun stops every part of multi-node run run of j, and reports
// whether all have ended already (none had started).
func (e *NodeExecutor) stopRun(ctx context.Context, tx *models.Tx, j *models.Job, run int64, grace time.Duration, now time.Time) (bool, error) {
	parts, err := models.RunParts(ctx, tx, j.ID, run)
	if err != nil {
		return false, err
	}
	if err := stopParts(ctx, tx, j, parts, grace, string(j.StopKind), j.StopReason, now); err != nil {
		return false, err
	}
	if parts, err = models.RunParts(ctx, tx, j.ID, run); err != nil {
		return false, err
	}
	for _, c := range parts {
		if c.PartEnded() == nil {
			return false, nil
		}
	}
	return true, nil
}
