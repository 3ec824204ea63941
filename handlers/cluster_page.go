package handlers

import (
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
	return render(c, http.StatusOK, views.ClusterPage(h.Page(c, "Cluster", "cluster"), clusterView(nodes, h.Now())))
}

// ClusterFragment handles GET /fragments/cluster: the live part of the
// overview, swapped in by htmx when an SSE event (or the poll) says so.
func (h *Handlers) ClusterFragment(c echo.Context) error {
	nodes, err := models.ClusterStatus(c.Request().Context(), h.DB.Bun)
	if err != nil {
		return fmt.Errorf("handlers: cluster fragment: %w", err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, views.ClusterGrid(clusterView(nodes, h.Now())))
}
