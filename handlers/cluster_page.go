package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// ClusterPage handles GET /: the overview of nodes and GPU tiles.
func (h *Handlers) ClusterPage(c echo.Context) error {
	v, err := h.clusterModel(c)
	if err != nil {
		return fmt.Errorf("handlers: cluster page: %w", err)
	}
	return render(c, http.StatusOK, views.ClusterPage(h.Page(c, "Cluster", "cluster"), v))
}

// ClusterFragment handles GET /fragments/cluster: the live part of the
// overview, swapped in by htmx when an SSE event (or the poll) says so.
func (h *Handlers) ClusterFragment(c echo.Context) error {
	v, err := h.clusterModel(c)
	if err != nil {
		return fmt.Errorf("handlers: cluster fragment: %w", err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, views.ClusterGrid(v))
}

// myJobsShown caps the "my jobs" panel.
const myJobsShown = 10

// clusterModel reads the overview in four queries whatever the cluster's
// size: nodes, GPUs with holders, reservations in force, the user's jobs.
func (h *Handlers) clusterModel(c echo.Context) (views.Cluster, error) {
	ctx, now := c.Request().Context(), h.Now()
	nodes, err := models.ClusterStatus(ctx, h.DB.Bun)
	if err != nil {
		return views.Cluster{}, err
	}
	res, err := models.ClusterReservations(ctx, h.DB.Bun, now)
	if err != nil {
		return views.Cluster{}, err
	}
	v := clusterView(nodes, res, now)
	if err := h.withReclaims(ctx, &v); err != nil { // idle countdown on tiles
		return views.Cluster{}, err
	}
	// Until when each GPU stays as it is, and the next 24 hours (calview).
	if err := h.withUntil(ctx, &v, nodes, userOf(c), now, viewerZone(c)); err != nil {
		return views.Cluster{}, err
	}
	if v, err = h.withRay(c, v); err != nil {
		return views.Cluster{}, err
	}
	if u := userOf(c); u != nil {
		jobs, err := models.ListJobs(ctx, h.DB.Bun, models.JobFilter{OwnerID: &u.ID, Limit: myJobsShown,
			States: []string{models.JobQueued, models.JobScheduled, models.JobAllocating, models.JobRunning, models.JobPreempted}})
		if err != nil {
			return views.Cluster{}, err
		}
		v.MyJobs = myJobs(jobs, now, viewerZone(c))
	}
	return v, nil
}

// myJobs turns the user's live jobs into the overview's panel rows, the
// reasons they wait worded at now in loc.
func myJobs(jobs []models.Job, now time.Time, loc *time.Location) []views.MyJob {
	out := make([]views.MyJob, 0, len(jobs))
	for _, j := range jobs {
		m := views.MyJob{ID: j.ID, Name: j.Name, State: j.State, GPUs: j.GPUCount, Size: jobSize(&j), Since: j.SubmittedAt,
			Reason: localtime.InstantsNear(j.PendingReason, now, loc)}
		if j.StartedAt != nil {
			m.Since = *j.StartedAt
		}
		if j.QueuePosition != nil && j.State == models.JobQueued {
			m.Position = *j.QueuePosition
		}
		if j.EstimatedStartAt != nil {
			m.StartsAt = *j.EstimatedStartAt
		}
		out = append(out, m)
	}
	return out
}

// withRay adds the Ray cluster's connection to the overview, if one is configured.
func (h *Handlers) withRay(c echo.Context, v views.Cluster) (views.Cluster, error) {
	rc, err := models.GetRayCluster(c.Request().Context(), h.DB.Bun)
	if errors.Is(err, models.ErrNotFound) {
		return v, nil
	}
	if err != nil {
		return v, fmt.Errorf("handlers: ray status: %w", err)
	}
	v.Ray = &views.RayStatus{Address: rc.Address, Connected: rc.Connected, RayVersion: rc.RayVersion, LastError: rc.LastError}
	if rc.DownSince != nil {
		v.Ray.DownSince = *rc.DownSince
	}
	return v, nil
}

// jobSize is what a job asks for, in words: a share of a shared GPU
// (api.ShareWords), MIG slices by profile, or whole GPUs.
func jobSize(j *models.Job) string {
	if s := api.ShareWords(j.GPUShare, j.ShareMemoryMiB); s != "" {
		return s
	}
	if scheduler.IsMIGProfile(j.GPUModel) {
		return words.Count(j.GPUCount, j.GPUModel+" slice")
	}
	return words.Count(j.GPUCount, "GPU")
}
