package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// DefaultStopGrace is how long a stopped job has between SIGTERM and SIGKILL.
const DefaultStopGrace = 10 * time.Second

// NodeExecutor runs jobs through the node agents: dispatch queues a start
// command for the agent of the job's node, stop a stop command. Agents
// long-poll their commands and answer each (see AnswerNodeCommand and
// FinishNodeRun), which moves the job on.
type NodeExecutor struct {
	deps *Deps
	// StopGrace is the time between SIGTERM and SIGKILL when stopping.
	StopGrace time.Duration
}

// NewNodeExecutor returns the node executor working with d; register it in
// d.Executors under models.ExecutorNode.
func NewNodeExecutor(d *Deps) *NodeExecutor {
	return &NodeExecutor{deps: d, StopGrace: DefaultStopGrace}
}

// stateStopper is an Executor that can stop a job into a given state
// (preempted as well as canceled).
type stateStopper interface {
	StopAs(ctx context.Context, job *models.Job, state, reason string) error
}

// Name implements Executor.
func (e *NodeExecutor) Name() string { return models.ExecutorNode }

// Dispatch implements Executor: in one transaction the job moves to
// allocating and a start command is queued for its node. A retry finds the
// job no longer scheduled and does nothing.
func (e *NodeExecutor) Dispatch(ctx context.Context, job *models.Job) error {
	return e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j := new(models.Job)
		if err := tx.NewSelect().Model(j).Where("id = ?", job.ID).For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("jobs: dispatch job %d: %w", job.ID, err)
		}
		if j.State != models.JobScheduled {
			return nil
		}
		gpus, err := models.JobGPUs(ctx, tx, j.ID)
		if err != nil {
			return err
		}
		if len(gpus) == 0 {
			return fmt.Errorf("jobs: dispatch job %d: it holds no GPUs", j.ID)
		}
		owner, err := models.GetUser(ctx, tx, j.OwnerID)
		if err != nil {
			return err
		}
		env, err := restartEnv(ctx, tx, j)
		if err != nil {
			return err
		}
		start := apiclient.StartJob{JobID: j.ID, Name: j.Name, Command: j.Command, Workdir: j.Workdir, Env: env, Owner: owner.Email}
		if owner.UnixUser != nil {
			start.UnixUser = *owner.UnixUser
		}
		for _, g := range gpus {
			if g.NodeID != gpus[0].NodeID {
				return e.failNow(ctx, tx, j, "the node executor runs a job on one node; this one spans several (use Ray)")
			}
			start.GPUs = append(start.GPUs, g.Index)
			start.GPUUUIDs = append(start.GPUUUIDs, g.UUID)
		}
		now := e.deps.Now()
		if _, err := models.EnqueueCommand(ctx, tx, gpus[0].NodeID, j.ID, models.CommandStart, start, now); err != nil {
			return err
		}
		_, err = models.MoveJob(ctx, tx, j.ID, models.JobAllocating, "sent to node "+gpus[0].NodeName, nil, now)
		return err
	})
}

func (e *NodeExecutor) failNow(ctx context.Context, tx *models.Tx, j *models.Job, why string) error {
	return finishNodeJob(ctx, tx, j, models.JobFailed, why, nil, e.deps.Now())
}

// Stop implements Executor: the job is canceled.
func (e *NodeExecutor) Stop(ctx context.Context, job *models.Job, reason string) error {
	return e.StopAs(ctx, job, models.JobCanceled, reason)
}

// StopAs stops job, which then becomes state (canceled or preempted). A
// job whose start its agent has not picked up yet ends at once; otherwise a
// stop command is queued and the job ends when the agent reports the exit.
func (e *NodeExecutor) StopAs(ctx context.Context, job *models.Job, state, reason string) error {
	return e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j := new(models.Job)
		if err := tx.NewSelect().Model(j).Where("id = ?", job.ID).For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("jobs: stop job %d: %w", job.ID, err)
		}
		if models.IsTerminal(j.State) || j.State == models.JobQueued {
			return nil
		}
		now := e.deps.Now()
		start, err := models.LatestCommand(ctx, tx, j.ID, models.CommandStart)
		if errors.Is(err, models.ErrNotFound) {
			return finishNodeJob(ctx, tx, j, state, reason, nil, now)
		}
		if err != nil {
			return err
		}
		if start.State == models.CommandPending && start.DeliveredAt == nil {
			if _, err := models.FinishCommand(ctx, tx, start, models.CommandCanceled, map[string]string{"reason": reason}, now); err != nil {
				return err
			}
			return finishNodeJob(ctx, tx, j, state, reason, nil, now)
		}
		stop := apiclient.StopJob{StartCommandID: start.ID, State: state, Reason: reason, GraceS: stopGraceS(j, state, e.StopGrace)}
		_, err = models.EnqueueCommand(ctx, tx, start.NodeID, j.ID, models.CommandStop, stop, now)
		return err
	})
}
