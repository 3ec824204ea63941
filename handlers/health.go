package handlers

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
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

// Readyz handles GET /readyz: the database answers as the next request
// will find it (models.DB.Ready: after a lost connection, only once the
// pools hold fresh connections and the change listener is back) and both
// our schema and River's are current. 503 otherwise, with what failed. Sign-in providers
// that cannot be reached are named under "signin" without making the
// server unready.
func (h *Handlers) Readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 3*time.Second)
	defer cancel()
	checks := map[string]readyCheck{}
	ready := true
	if err := h.DB.Ready(ctx); err != nil {
		checks["database"] = readyCheck{Detail: "database unreachable: " + err.Error()}
		ready = false
	} else {
		checks["database"] = readyCheck{OK: true}
		current, err := h.Migrations.Current(ctx)
		switch {
		case err != nil:
			checks["migrations"] = readyCheck{Detail: err.Error()}
			ready = false
		case !current:
			checks["migrations"] = readyCheck{Detail: "schema not current: run gpusched migrate"}
			ready = false
		default:
			checks["migrations"] = readyCheck{OK: true}
		}
	}
	// Sign-in providers: reported, never fatal. A provider
	// that is down must not take the API and the node agents with it.
	if down := h.SignIn.Unavailable(); len(down) > 0 {
		var lines []string
		for name, why := range down {
			lines = append(lines, name+": "+why)
		}
		sort.Strings(lines)
		checks["signin"] = readyCheck{Detail: "unavailable (the server stays ready): " + strings.Join(lines, "; ")}
	} else if len(h.SignIn.List()) > 0 {
		checks["signin"] = readyCheck{OK: true}
	}
	status, word := http.StatusOK, "ready"
	if !ready {
		status, word = http.StatusServiceUnavailable, "not ready"
	}
	return c.JSON(status, map[string]any{"status": word, "checks": checks})
}
