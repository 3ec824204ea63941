package handlers

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// ClusterPage handles GET /: the overview of nodes and GPU tiles.
func (h *Handlers) ClusterPage(c echo.Context) error {
	nodes, err := models.ClusterStatus(c.Request().Context(), h.DB.Bun)
	if err != nil {
		return fmt.Errorf("handlers: cluster page: %w", err)
	}
	v, err := h.withRay(c, clusterView(nodes, h.Now()))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.ClusterPage(h.Page(c, "Cluster", "cluster"), v))
}

// ClusterFragment handles GET /fragments/cluster: the live part of the
// overview, swapped in by htmx when an SSE event (or the poll) says so.
func (h *Handlers) ClusterFragment(c echo.Context) error {
	nodes, err := models.ClusterStatus(c.Request().Context(), h.DB.Bun)
	if err != nil {
		return fmt.Errorf("handlers: cluster fragment: %w", err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	v, err := h.withRay(c, clusterView(nodes, h.Now()))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.ClusterGrid(v))
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
