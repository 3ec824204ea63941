package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// NodeSelf handles GET /api/v1/nodes/self: which node the calling token
// belongs to and the server's clock, so `gpusched node doctor` can check the
// token and the clock skew before a host joins. It changes nothing.
func (h *Handlers) NodeSelf(c echo.Context) error {
	node := PrincipalOf(c).Node
	return c.JSON(http.StatusOK, api.NodeSelf{NodeID: node.ID, Name: node.Name, ServerTime: h.Now().UTC(),
		ServerVersion: h.Config.Version, HeartbeatIntervalS: int(h.Config.HeartbeatInterval.Seconds()),
		MIGLayout: node.MIGLayout, MIGLayoutReport: node.MIGLayoutReport})
}
