package web

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// tokenTouches records token use in memory and writes last_used_at in one
// batched UPDATE per flush, at most once a minute per token, so API calls
// never each cost a write.
type tokenTouches struct {
	db     *models.DB
	logger *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	pending map[int64]bool
	written map[int64]time.Time
}

func newTokenTouches(db *models.DB, logger *slog.Logger, now func() time.Time) *tokenTouches {
	return &tokenTouches{db: db, logger: logger, now: now, pending: map[int64]bool{}, written: map[int64]time.Time{}}
}

// touch notes one use of token id.
func (t *tokenTouches) touch(id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if last, ok := t.written[id]; ok && t.now().Sub(last) < time.Minute {
		return
	}
	t.pending[id] = true
}

// flush writes what is pending.
func (t *tokenTouches) flush(ctx context.Context) {
	t.mu.Lock()
	ids := make([]int64, 0, len(t.pending))
	now := t.now()
	for id := range t.pending {
		ids = append(ids, id)
		t.written[id] = now
	}
	clear(t.pending)
	t.mu.Unlock()
	if err := models.TouchTokens(ctx, t.db.Bun, ids, now); err != nil {
		t.logger.Warn("could not record token use", "err", err)
	}
}

// run flushes every interval until ctx ends, then once more.
func (t *tokenTouches) run(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			t.flush(flushCtx)
			cancel()
			return
		case <-tick.C:
			t.flush(ctx)
		}
	}
}
