package handlers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// NodeLeaseCreate handles POST /api/v1/nodes/{id}/leases: a process on the
// node asks, through the agent's local /acquire, for GPUs of that node. It
// becomes a lease job pinned to the node, owned by the scheduler user
// mapped to the process's Unix user, scheduled like any other job. The job
// records the process (PID and start time), so that an agent that restarts
// finds it; with the start time, the agent renews the lease while the
// process lives, so its TTL is the policy's node_ttl.
func (h *Handlers) NodeLeaseCreate(c echo.Context) error {
	node, err := ownNode(c)
	if err != nil {
		return err
	}
	var req api.NodeLeaseRequest
	if err := decodeNodeJSON(c, &req); err != nil {
		return err
	}
	if req.PID <= 0 {
		return invalid("pid", "must be a process id, got %d", req.PID)
	}
	if req.PIDStart > math.MaxInt64 {
		return invalid("pid_start", "must be a start time in clock ticks since boot, got %d", req.PIDStart)
	}
	ctx := c.Request().Context()
	leases, err := h.leasePolicy(ctx)
	if err != nil {
		return err
	}
	u, err := models.UserByUnixUser(ctx, h.DB.Bun, req.UnixUser)
	if err != nil {
		return Errorf(http.StatusForbidden, api.CodeUnknownUnixUser,
			"no GPUScheduler user is mapped to Unix user %q; an admin can map one: gpusched user create --email EMAIL --unix-user %s (or gpusched user set-unix-user --email EMAIL --unix-user %s)",
			req.UnixUser, req.UnixUser, req.UnixUser)
	}
	spec := api.SubmitRequest{GPUCount: &req.GPUCount, MemoryGB: req.MemoryGB, GPUModel: req.GPUModel, Name: req.Name,
		Priority: req.Priority, EstimatedDuration: req.Duration, Executor: models.ExecutorLease}
	cp, err := h.capacity(ctx)
	if err != nil {
		return err
	}
	job, err := jobFrom(&spec, u, cp, h.CanRun)
	if err != nil {
		return err
	}
	job.ClientRef = fmt.Sprintf("pid %d on %s", req.PID, node.Name)
	if job.Name == "" {
		job.Name = job.ClientRef
	}
	if req.PIDStart > 0 { // an agent that renews the lease while the process lives
		ttl := int64(time.Duration(leases.NodeTTL) / time.Second)
		job.LeaseTTLS = &ttl
	}
	err = h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		if err := models.CreateJob(ctx, tx.PGX(), job, h.Now()); err != nil {
			return err
		}
		return models.PinLease(ctx, tx, job, node.ID, req.PID, int64(req.PIDStart))
	})
	if err != nil {
		return fmt.Errorf("handlers: lease on node %s: %w", node.Name, err)
	}
	h.Signals.Signal(models.ChannelJobs, fmt.Sprint(job.ID))
	out, err := h.leaseAnswer(ctx, job, u.Email)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// NodeLeaseGet handles GET /api/v1/nodes/{id}/leases/{job}?state=S&wait=N:
// the lease, once its state is no longer S (or at once without S) or the
// scheduler's word on it (place, reason, expected start) changed, waiting
// at most N seconds (default 20). Answering a granted lease to the agent,
// which hands it to the waiting process, confirms the grant.
func (h *Handlers) NodeLeaseGet(c echo.Context) error {
	node, err := ownNode(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	wait := 20 * time.Second
	if s := c.QueryParam("wait"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || time.Duration(n)*time.Second > maxCommandWait {
			return invalid("wait", "must be 0–%d seconds", int(maxCommandWait.Seconds()))
		}
		wait = time.Duration(n) * time.Second
	}
	events, unsubscribe := h.Listener.Subscribe(models.Topic(models.ChannelJobs), models.Topic(models.ChannelScheduler))
	defer unsubscribe()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	timedOut := false
	var first *models.Job
	for {
		j, err := h.nodeLease(ctx, node, c.Param("job"))
		if err != nil {
			return err
		}
		if first == nil {
			first = j
		}
		if timedOut || j.State != c.QueryParam("state") || explanationChanged(first, j) {
			if j, err = h.confirmLease(ctx, j); err != nil {
				return err
			}
			owner, err := models.GetUser(ctx, h.DB.Bun, j.OwnerID)
			if err != nil {
				return err
			}
			out, err := h.leaseAnswer(ctx, j, owner.Email)
			if err != nil {
				return err
			}
			return c.JSON(http.StatusOK, out)
		}
		select {
		case <-events:
		case <-deadline.C:
			timedOut = true
		case <-ctx.Done():
			return nil // the agent went away
		}
	}
}

// NodeLeaseEnd handles DELETE /api/v1/nodes/{id}/leases/{job}?reason=R: the
// process exited (or gave up waiting): a waiting lease is withdrawn, a
// granted one ends and frees its GPUs. Ending an ended lease is harmless.
func (h *Handlers) NodeLeaseEnd(c echo.Context) error {
	node, err := ownNode(c)
	if err != nil {
		return err
	}
	reason := c.QueryParam("reason")
	if reason == "" || len(reason) > 500 {
		reason = "ended by the node agent"
	}
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		found, err := h.nodeLease(ctx, node, c.Param("job"))
		if err != nil {
			return err
		}
		j, err := h.Lifecycle.Lock(ctx, tx, found.ID)
		if err != nil {
			return err
		}
		err = h.Lifecycle.RequestStop(ctx, tx, j, models.StopRequest{Kind: models.StopRelease, Reason: reason}, h.Now())
		if errors.Is(err, models.ErrJobEnded) {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("handlers: end lease on node %s: %w", node.Name, err)
	}
	return c.NoContent(http.StatusNoContent)
}

// nodeLease loads the path's lease job, which must be pinned to node.
func (h *Handlers) nodeLease(ctx context.Context, node *models.Node, param string) (*models.Job, error) {
	id, err := strconv.ParseInt(param, 10, 64)
	if err != nil || id <= 0 {
		return nil, Errorf(http.StatusBadRequest, api.CodeInvalidPath, "job id %q is not a positive number", param)
	}
	j, err := models.GetJob(ctx, h.DB.Bun, id)
	if err != nil || j.Executor != models.ExecutorLease || j.NodeID == nil || *j.NodeID != node.ID {
		return nil, Errorf(http.StatusNotFound, api.CodeNotFound, "node %s has no lease %d", node.Name, id)
	}
	return j, nil
}

func (h *Handlers) leaseAnswer(ctx context.Context, j *models.Job, owner string) (api.NodeLease, error) {
	out := api.NodeLease{JobID: j.ID, State: j.State, Owner: owner, GPUs: []int{}, Position: j.QueuePosition,
		Reason: j.PendingReason, EstimatedStart: j.EstimatedStartAt, Confirmed: j.LeaseConfirmedAt != nil, ExpiresAt: j.LeaseExpiresAt}
	if j.LeasePID != nil {
		out.PID = *j.LeasePID
	}
	if j.LeasePIDStart != nil {
		out.PIDStart = uint64(*j.LeasePIDStart)
	}
	if j.State == models.JobRunning {
		gpus, err := models.JobGPUs(ctx, h.DB.Bun, j.ID)
		if err != nil {
			return out, err
		}
		for _, g := range gpus {
			out.GPUs, out.GPUUUIDs = append(out.GPUs, g.Index), append(out.GPUUUIDs, g.UUID)
		}
	}
	return out, nil
}

// explanationChanged reports whether the scheduler's word on a waiting job
// changed between two reads.
func explanationChanged(a, b *models.Job) bool {
	pos := func(j *models.Job) int {
		if j.QueuePosition == nil {
			return -1
		}
		return *j.QueuePosition
	}
	eta := func(j *models.Job) time.Time {
		if j.EstimatedStartAt == nil {
			return time.Time{}
		}
		return j.EstimatedStartAt.Truncate(time.Minute)
	}
	return pos(a) != pos(b) || a.PendingReason != b.PendingReason || !eta(a).Equal(eta(b))
}
