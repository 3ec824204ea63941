package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// NodeLeaseList handles GET /api/v1/nodes/{id}/leases: the node's live
// leases (waiting or granted), each with the process that holds it and
// whether its client learned of the grant. An agent that starts reads it
// to adopt the leases whose processes still run and end the others.
func (h *Handlers) NodeLeaseList(c echo.Context) error {
	node, err := ownNode(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	js, err := models.NodeLeases(ctx, h.DB.Bun, node.ID)
	if err != nil {
		return fmt.Errorf("handlers: leases of node %s: %w", node.Name, err)
	}
	owners := map[int64]string{}
	out := make([]api.NodeLease, 0, len(js))
	for i := range js {
		j := &js[i]
		if _, ok := owners[j.OwnerID]; !ok {
			u, err := models.GetUser(ctx, h.DB.Bun, j.OwnerID)
			if err != nil {
				return err
			}
			owners[j.OwnerID] = u.Email
		}
		l, err := h.leaseAnswer(ctx, j, owners[j.OwnerID])
		if err != nil {
			return err
		}
		out = append(out, l)
	}
	return c.JSON(http.StatusOK, out)
}
