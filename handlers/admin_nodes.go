package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// AdminNodes handles GET /admin/nodes: nodes with drain and undrain buttons.
func (h *Handlers) AdminNodes(c echo.Context) error { return h.adminNodesPage(c, http.StatusOK, "") }

// adminNodesPage renders the nodes page with status and an error sentence.
func (h *Handlers) adminNodesPage(c echo.Context, status int, problem string) error {
	ctx := c.Request().Context()
	nodes, err := models.ListNodes(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	gpus, err := models.GPUCountsByNode(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	now := h.Now()
	a := views.AdminNodes{Error: problem}
	for _, n := range nodes {
		row := views.AdminNode{Name: n.Name, Status: n.Status, Drained: n.Drained, GPUs: gpus[n.ID], LastSeen: "never",
			MIGReport: n.MIGLayoutReport}
		if n.MIGLayout != nil {
			row.MIGLayout = *n.MIGLayout
		}
		if n.MIGLayoutReportedAt != nil {
			row.MIGReportAge = views.Ago(now, *n.MIGLayoutReportedAt)
		}
		if n.LastHeartbeatAt != nil {
			row.LastSeen = views.Ago(now, *n.LastHeartbeatAt)
		}
		a.Nodes = append(a.Nodes, row)
	}
	return render(c, status, views.AdminNodesPage(h.Page(c, "Nodes", "admin"), a))
}

// AdminNodeDrain handles POST /admin/nodes/{name}/drain: nothing new starts there.
func (h *Handlers) AdminNodeDrain(c echo.Context) error { return h.drainPage(c, true) }

// AdminNodeUndrain handles POST /admin/nodes/{name}/undrain.
func (h *Handlers) AdminNodeUndrain(c echo.Context) error { return h.drainPage(c, false) }

func (h *Handlers) drainPage(c echo.Context, drained bool) error {
	if _, err := h.drain(c, c.Param("name"), drained); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/admin/nodes")
}
