package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/migrations"
)

// Healthz handles GET /healthz: the process is up. It touches nothing else,
// so a load balancer's probe stays cheap.
func (h *Handlers) Healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "version": h.Config.Version})
}

// readyCheck is one line of /readyz.
type readyCheck struct {
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// Readyz handles GET /readyz: the database answers and both our schema and
// River's are current. 503 otherwise, with what failed.
func (h *Handlers) Readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 3*time.Second)
	defer cancel()
	checks := map[string]readyCheck{}
	ready := true
	if err := h.DB.Pool.Ping(ctx); err != nil {
		checks["database"] = readyCheck{Detail: "database unreachable: " + err.Error()}
		ready = false
	} else {
		checks["database"] = readyCheck{OK: true}
		applied, riverOK, err := h.Migrations.Status(ctx)
		switch {
		case err != nil:
			checks["migrations"] = readyCheck{Detail: err.Error()}
			ready = false
		case applied != migrations.Latest() || !riverOK:
			checks["migrations"] = readyCheck{Detail: "schema not current: run gpusched migrate"}
			ready = false
		default:
			checks["migrations"] = readyCheck{OK: true}
		}
	}
	status, word := http.StatusOK, "ready"
	if !ready {
		status, word = http.StatusServiceUnavailable, "not ready"
	}
	return c.JSON(status, map[string]any{"status": word, "checks": checks})
}
