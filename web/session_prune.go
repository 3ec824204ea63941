package web

import (
	"context"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// sessionKeep is how long ended and expired sessions stay listed in the
// database (for the record) before they are deleted.
const sessionKeep = 30 * 24 * time.Hour

// pruneSessions deletes sessions that ended or expired more than sessionKeep
// ago, and session handoffs that expired unspent, at start and then
// hourly, until ctx ends. Every replica may do it; the deletes are
// idempotent.
func (s *Server) pruneSessions(ctx context.Context) {
	for {
		n, err := models.DeleteOldSessions(ctx, s.db.Bun, s.now().Add(-sessionKeep))
		switch {
		case err != nil && ctx.Err() == nil:
			s.logger.Warn("prune old sessions", "err", err)
		case n > 0:
			s.logger.Info("pruned old sessions", "deleted", n)
		}
		n, err = models.DeleteExpiredSessionHandoffs(ctx, s.db.Bun, s.now())
		switch {
		case err != nil && ctx.Err() == nil:
			s.logger.Warn("prune expired session handoffs", "err", err)
		case n > 0:
			s.logger.Info("pruned expired session handoffs", "deleted", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Hour):
		}
	}
}
