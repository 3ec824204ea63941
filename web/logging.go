package web

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"
)

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// quietRoutes are logged at debug level: probes, scrapes and the steady
// stream of node heartbeats would drown everything else.
var quietRoutes = map[string]bool{
	"/healthz": true, "/readyz": true, "/metrics": true, "/static/*": true,
	"/api/v1/nodes/:id/heartbeat": true, "/fragments/cluster": true,
}

// requestLogger logs one line per request with its id, route, status and
// latency; the request id is also on the context's logger for handlers.
func (s *Server) requestLogger(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
			err = nil
		}
		level := slog.LevelInfo
		switch {
		case c.Response().Status >= 500:
			level = slog.LevelError
		case quietRoutes[c.Path()] && c.Response().Status < 400:
			level = slog.LevelDebug
		}
		s.logger.LogAttrs(c.Request().Context(), level, "request",
			slog.String("request_id", c.Response().Header().Get(echo.HeaderXRequestID)),
			slog.String("method", c.Request().Method),
			slog.String("path", logPath(c.Request().URL.Path)), // calendar: feed tokens redacted
			slog.String("route", c.Path()),
			slog.Int("status", c.Response().Status),
			slog.Int64("bytes", c.Response().Size),
			slog.Duration("latency", time.Since(start)),
			slog.String("remote", c.RealIP()),
		)
		return err
	}
}
