package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// nodeSelf is the answer of GET /api/v1/nodes/self.
type nodeSelf struct {
	NodeID             int64     `json:"node_id"`
	Name               string    `json:"name"`
	ServerTime         time.Time `json:"server_time"`
	ServerVersion      string    `json:"server_version"`
	HeartbeatIntervalS int       `json:"heartbeat_interval_s"`
}

// NodeSelf handles GET /api/v1/nodes/self: which node the calling token
// belongs to and the server's clock, so `gpusched node doctor` can check the
// token and the clock skew before a host joins. It changes nothing.
func (h *Handlers) NodeSelf(c echo.Context) error {
	node := PrincipalOf(c).Node
	return c.JSON(http.StatusOK, nodeSelf{NodeID: node.ID, Name: node.Name, ServerTime: h.Now().UTC(),
		ServerVersion: h.Config.Version, HeartbeatIntervalS: int(h.Config.HeartbeatInterval.Seconds())})
}
