package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// endWithSession ends a long-lived response (the event stream) when the
// browser session it was opened with ends: on every tokens signal (a
// session ended, a user disabled) it checks the session in the database and
// cancels the request's context once it is no longer live.
func (s *Server) endWithSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p := handlers.PrincipalOf(c)
		if p == nil || p.SessionID == 0 {
			return next(c)
		}
		ctx, cancel := context.WithCancel(c.Request().Context())
		defer cancel()
		events, unsubscribe := s.listener.Subscribe(models.Topic(models.ChannelTokens))
		defer unsubscribe()
		r := c.Request()
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-events:
					if !s.sessions.live(ctx, r) {
						cancel()
						return
					}
				}
			}
		}()
		c.SetRequest(r.WithContext(ctx))
		return next(c)
	}
}

// live reports whether the request's session is still live in the database
// and its user enabled (no cache: used right after a revocation signal). A
// database error counts as live: a hiccup must not drop every stream.
func (s *Sessions) live(ctx context.Context, r *http.Request) bool {
	opaque, ok := s.opaque(r)
	if !ok {
		return false
	}
	live, err := models.SessionLive(ctx, s.db.Bun, models.SessionHash(opaque), s.now())
	return live || err != nil
}
