package clientagent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
)

// ActionTaker asks the control plane for a pre-warm hold when a monitor
// fires, at most once per cooldown. It sends the allocation (defaults with
// the monitor's overrides) and the monitor's name: it never sees the event.
type ActionTaker struct {
	Client    *apiclient.Client
	Config    *Config
	Cooldowns *Cooldowns
	DryRun    bool
	Logger    *slog.Logger
	Now       func() time.Time
	// Backoff is the first pause between tries of a failed request.
	Backoff time.Duration
}

// Cooling reports whether the monitor is in its cooldown (then its events
// are ignored before any LLM call).
func (a *ActionTaker) Cooling(monitor string) bool {
	on, _ := a.Cooldowns.Active(monitor, a.Now())
	return on
}

// Act asks for a hold for monitor m and starts its cooldown.
func (a *ActionTaker) Act(ctx context.Context, m *MonitorConfig) error {
	req := a.Config.allocationFor(m).holdRequest(m.Name)
	until := a.Now().Add(m.Cooldown.D(DefaultCooldown))
	if a.DryRun {
		body, _ := json.Marshal(req)
		a.Logger.Info("dry run: would POST "+api.AllocatePath, "monitor", m.Name, "body", string(body), "cooldown_until", until)
		return a.Cooldowns.Start(m.Name, until)
	}
	key := newKey()
	var hold *api.Hold
	var err error
	for attempt := range 3 {
		hold, err = a.Client.Allocate(ctx, req, key)
		if err == nil || !retryableAPI(err) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(a.backoffOr() << attempt):
		}
	}
	switch {
	case err == nil:
		a.Logger.Info("GPUs held for you", "monitor", m.Name, "hold", hold.ID, "gpus", hold.GPUCount, "expires_at", hold.ExpiresAt)
	case api.IsStatus(err, http.StatusConflict):
		// At the hold limit or the quota: asking again soon would not help.
		a.Logger.Warn("the control plane refused a hold", "monitor", m.Name, "err", err)
	default:
		return fmt.Errorf("clientagent: allocate for %s: %w", m.Name, err)
	}
	return a.Cooldowns.Start(m.Name, until)
}

func (a *ActionTaker) backoffOr() time.Duration {
	if a.Backoff > 0 {
		return a.Backoff
	}
	return time.Second
}

// retryableAPI: network trouble and 5xx/429 may pass; other answers will not.
func retryableAPI(err error) bool {
	var e *api.Error
	if errors.As(err, &e) {
		return e.Status >= 500 || e.Status == http.StatusTooManyRequests
	}
	return true
}

// newKey is a fresh Idempotency-Key, the same for every try of one request.
func newKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "agent-" + hex.EncodeToString(b)
}
