package jobs

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// submit hands a scheduled job to Ray once. It is idempotent by job: the
// run (and so Ray's submission_id) is the same across retries, and Ray's
// "already exists" answer to a retry means the first attempt got through.
// A transient failure is returned for ray_dispatch to retry; a 4xx refusal
// fails the job with Ray's message and releases its GPUs.
func (e *RayExecutor) submit(ctx context.Context, jobID int64) error {
	var req ray.SubmitRequest
	var run *models.RayRun
	err := e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, err := e.deps.Lifecycle.Lock(ctx, tx, jobID)
		if err != nil || j.State != models.JobScheduled {
			return err
		}
		now := e.deps.Now()
		if run, err = models.OpenRayRun(ctx, tx, j.ID, func(a int) string { return ray.SubmissionID(j.ID, a) }, now); err != nil {
			return err
		}
		token := fmt.Sprintf("%d@%d", run.ID, run.CreatedAt.UnixNano())
		p, err := e.placement(ctx, tx, j.Job, run.SubmissionID, token)
		if err == nil {
			req, err = p.Request()
		}
		if err != nil {
			run.State, run.Message = models.RayRunDone, err.Error()
			if uerr := models.UpdateRayRun(ctx, tx, run, now); uerr != nil {
				return uerr
			}
			run = nil
			return e.deps.Lifecycle.Finish(ctx, tx, j, models.RunEnd{Refused: "cannot hand the job to Ray: " + err.Error()}, now)
		}
		return nil
	})
	if err != nil || run == nil {
		return err
	}
	_, err = e.cfg.Client.Submit(ctx, req)
	switch {
	case err == nil:
		return e.accepted(ctx, jobID, run)
	case ray.IsAlreadyExists(err):
		return e.alreadyThere(ctx, jobID, run, req)
	case ray.IsPermanent(err):
		return e.refused(ctx, jobID, run, err)
	}
	return fmt.Errorf("jobs: submit job %d to ray: %w", jobID, err)
}

// accepted records Ray's acceptance: the job moves to allocating. A job
// canceled meanwhile has its submission stopped on Ray by the sync.
func (e *RayExecutor) accepted(ctx context.Context, jobID int64, run *models.RayRun) error {
	err := e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, err := e.deps.Lifecycle.Lock(ctx, tx, jobID)
		if err != nil {
			return err
		}
		r, err := models.LatestRayRun(ctx, tx, jobID)
		if err != nil {
			return err
		}
		now := e.deps.Now()
		if r.ID != run.ID || r.State != models.RayRunSubmitting || j.State != models.JobScheduled {
			if r.ID == run.ID && r.State == models.RayRunSubmitting {
				r.State = models.RayRunLost
				return models.UpdateRayRun(ctx, tx, r, now)
			}
			return nil // the stop already marked it lost, or a retry got here first
		}
		r.State, r.RayStatus = models.RayRunSubmitted, ray.StatusPending
		if err := models.UpdateRayRun(ctx, tx, r, now); err != nil {
			return err
		}
		return e.deps.Lifecycle.Handed(ctx, tx, j, "handed to Ray as "+r.SubmissionID, now)
	})
	if err != nil {
		return fmt.Errorf("jobs: record ray submission of job %d: %w", jobID, err)
	}
	e.wake(ctx)
	return nil
}

// alreadyThere handles Ray's "submission_id already exists": our own
// earlier attempt got through (its metadata carries this run's token), or
// the id belongs to a hand-over Ray remembers from before our database
// (then this run is closed and the retry opens the next attempt, a new id).
func (e *RayExecutor) alreadyThere(ctx context.Context, jobID int64, run *models.RayRun, req ray.SubmitRequest) error {
	d, err := e.cfg.Client.Get(ctx, run.SubmissionID)
	if err != nil {
		return fmt.Errorf("jobs: look up existing ray submission %s: %w", run.SubmissionID, err)
	}
	if d.Metadata["gpusched_run"] == req.Metadata["gpusched_run"] {
		return e.accepted(ctx, jobID, run)
	}
	err = e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		_, r, err := e.lockRun(ctx, tx, run)
		if err != nil || r.State != models.RayRunSubmitting {
			return err
		}
		r.State, r.Message = models.RayRunDone, "the submission id is taken on Ray by an older hand-over"
		return models.UpdateRayRun(ctx, tx, r, e.deps.Now())
	})
	if err != nil {
		return err
	}
	return fmt.Errorf("jobs: submission id %s of job %d is taken on Ray; the retry uses the next one", run.SubmissionID, jobID)
}

// refused fails the job with Ray's message and releases its GPUs.
func (e *RayExecutor) refused(ctx context.Context, jobID int64, run *models.RayRun, rayErr error) error {
	msg := rayErr.Error()
	var re *ray.Error
	if errors.As(rayErr, &re) {
		msg = fmt.Sprintf("Ray refused the job (%d): %s", re.Status, re.Message())
	}
	return e.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		j, r, err := e.lockRun(ctx, tx, run)
		if err != nil {
			return err
		}
		now := e.deps.Now()
		r.State, r.Message = models.RayRunDone, msg
		if err := models.UpdateRayRun(ctx, tx, r, now); err != nil {
			return err
		}
		if models.IsTerminal(j.State) || j.State == models.JobQueued {
			return nil // it moved on without this run
		}
		return e.deps.Lifecycle.Finish(ctx, tx, j, models.RunEnd{Refused: msg}, now)
	})
}

// placement gathers what the submission of j needs: its GPUs by node, the
// Ray node the first one maps to, its owner; token marks this run.
func (e *RayExecutor) placement(ctx context.Context, tx *models.Tx, j *models.Job, sid, token string) (ray.Placement, error) {
	p := ray.Placement{JobID: j.ID, SubmissionID: sid, Name: j.Name, Entrypoint: j.Command, Env: j.Env, RunToken: token}
	task, err := arrayTask(ctx, tx, j)
	if err != nil {
		return p, err
	}
	if task != nil {
		p.Env = maps.Clone(j.Env)
		if p.Env == nil {
			p.Env = map[string]string{}
		}
		maps.Copy(p.Env, task.Env())
	}
	gpus, err := models.JobGPUs(ctx, tx, j.ID)
	if err != nil {
		return p, err
	}
	if len(gpus) == 0 {
		return p, fmt.Errorf("job %d holds no GPUs", j.ID)
	}
	owner, err := models.GetUser(ctx, tx, j.OwnerID)
	if err != nil {
		return p, err
	}
	p.Owner = owner.Email
	for _, g := range gpus {
		if len(p.Nodes) == 0 || p.Nodes[len(p.Nodes)-1].Node != g.NodeName {
			p.Nodes = append(p.Nodes, ray.NodeGPUs{Node: g.NodeName})
		}
		n := &p.Nodes[len(p.Nodes)-1]
		n.GPUs, n.UUIDs = append(n.GPUs, g.Index), append(n.UUIDs, g.UUID)
	}
	p.RayNode = e.cfg.Nodes[gpus[0].NodeName]
	if p.RayNode == "" {
		node, err := models.GetNode(ctx, tx, gpus[0].NodeID)
		if err != nil {
			return p, err
		}
		p.RayNode = node.Hostname
	}
	return p, nil
}
