package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

const maxAllocateWait = 10 * time.Minute

// GPUAllocate handles POST /api/v1/cluster/gpu-allocate: queue a lease for
// GPUs and block until the scheduler grants it (200 with the GPUs) or the
// timeout passes (202 with the job to poll at /api/v1/jobs/{id}). The
// caller runs its own process on the GPUs and releases them with
// /cluster/gpu-release. Every lease has a TTL (ttl_s, else the policy's
// default; at most its cap), renewed with /cluster/gpu-renew. A grant
// counts as received once the client reads it (the 200 here, or the job
// read running); one never read is released after the policy's
// confirm_within.
func (h *Handlers) GPUAllocate(c echo.Context) error {
	u := userOf(c)
	var b api.AllocateRequest
	body, err := readJSON(c, &b)
	if err != nil {
		return err
	}
	wait := 30 * time.Second
	if b.TimeoutS != nil {
		if *b.TimeoutS < 0 || *b.TimeoutS > maxAllocateWait.Seconds() {
			return invalid("timeout_s", "must be 0–%d seconds", int(maxAllocateWait.Seconds()))
		}
		wait = time.Duration(*b.TimeoutS * float64(time.Second))
	}
	if len(b.JobID) > 200 {
		return invalid("job_id", "at most 200 characters")
	}
	ctx := c.Request().Context()
	leases, err := h.leasePolicy(ctx)
	if err != nil {
		return err
	}
	ttl, err := leaseTTL(b.TTLS, time.Duration(leases.DefaultTTL), leases)
	if err != nil {
		return err
	}
	cp, err := h.capacity(ctx)
	if err != nil {
		return err
	}
	spec := api.SubmitRequest{GPUCount: b.GPUCount, MemoryGB: b.MemoryGB, GPUModel: b.GPUModel, Priority: b.Priority,
		EstimatedDuration: b.EstimatedDuration, Name: strings.TrimSpace(b.Name), AllowMultiNode: b.AllowMultiNode,
		Executor: models.ExecutorLease}
	job, err := jobFrom(&spec, u, cp, h.CanRun)
	if err != nil {
		return err
	}
	ttlS := int64(ttl / time.Second)
	job.ClientRef, job.LeaseTTLS = b.JobID, &ttlS
	if job.Name == "" {
		job.Name = b.JobID
	}
	// Subscribe before creating, so the grant cannot slip between the two.
	events, unsubscribe := h.Listener.Subscribe(models.Topic(models.ChannelJobs))
	defer unsubscribe()
	var id int64
	err = h.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		_, out, err := idempotent(c, tx, body, func(ctx context.Context) (int, any, error) {
			if err := models.CreateJob(ctx, tx.PGX(), job, h.Now()); err != nil {
				return 0, nil, err
			}
			return http.StatusAccepted, map[string]int64{"id": job.ID}, nil
		})
		if err != nil {
			return err
		}
		var created struct{ ID int64 }
		raw, _ := json.Marshal(out)
		if err := json.Unmarshal(raw, &created); err != nil || created.ID == 0 {
			return fmt.Errorf("handlers: allocate: stored answer %s has no id", raw)
		}
		id = created.ID
		return nil
	})
	if err != nil {
		return fmt.Errorf("handlers: allocate: %w", err)
	}
	h.Signals.Signal(models.ChannelJobs, fmt.Sprint(id))
	return h.awaitGrant(c, id, wait, events)
}

// awaitGrant answers with the GPUs once job id runs, or 202 at the deadline.
func (h *Handlers) awaitGrant(c echo.Context, id int64, wait time.Duration, events <-chan models.Event) error {
	ctx := c.Request().Context()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		j, err := models.GetJob(ctx, h.DB.Bun, id)
		if err != nil {
			return err
		}
		switch {
		case j.State == models.JobRunning:
			return h.granted(c, j)
		case models.IsTerminal(j.State):
			return Errorf(http.StatusConflict, api.CodeBadState, "job %d ended before it got GPUs (%s)", id, j.State)
		}
		select {
		case <-events:
		case <-deadline.C:
			return h.stillWaiting(c, j)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// granted answers with lease j's GPUs: the client learns of the grant, so
// the lease is confirmed and runs for its whole TTL.
func (h *Handlers) granted(c echo.Context, j *models.Job) error {
	ctx := c.Request().Context()
	j, err := h.confirmLease(ctx, j)
	if err != nil {
		return err
	}
	if j.State != models.JobRunning { // released or expired since it was read
		return Errorf(http.StatusConflict, api.CodeBadState, "job %d ended before its grant could be answered (%s)", j.ID, j.State)
	}
	gpus, err := models.JobGPUs(ctx, h.DB.Bun, j.ID)
	if err != nil {
		return err
	}
	out := api.Allocation{ID: j.ID, JobID: j.ClientRef, State: j.State, GPUs: []api.AllocatedGPU{}, LeaseExpiresAt: j.LeaseExpiresAt}
	idx := make([]string, 0, len(gpus))
	nodes := map[string]bool{}
	for _, g := range gpus {
		out.GPUs = append(out.GPUs, api.AllocatedGPU{Node: g.NodeName, Index: g.Index, UUID: g.UUID, Model: g.Model})
		idx = append(idx, fmt.Sprint(g.Index))
		nodes[g.NodeName] = true
	}
	out.CUDAVisibleDevices = strings.Join(idx, ",")
	if len(nodes) == 1 {
		out.Node = out.GPUs[0].Node
	}
	return c.JSON(http.StatusOK, out)
}

func (h *Handlers) stillWaiting(c echo.Context, j *models.Job) error {
	owner, err := models.GetUser(c.Request().Context(), h.DB.Bun, j.OwnerID)
	if err != nil {
		return err
	}
	poll := fmt.Sprintf("/api/v1/jobs/%d", j.ID)
	c.Response().Header().Set(echo.HeaderLocation, poll)
	return c.JSON(http.StatusAccepted, api.AllocationPending{Job: jobJSON(j, owner.Email, h.Now()), Poll: poll})
}
