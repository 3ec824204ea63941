package web

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// sseTopics are the event names browsers may subscribe to.
var sseTopics = []string{"jobs", "gpus", "nodes", "bookings", "queue", "logs", "notifications"}

// Hub pushes change signals from PostgreSQL LISTEN/NOTIFY to browsers as
// named SSE events. Bursts are coalesced: each topic fires at most once a
// second, so a hundred heartbeats a second cost a browser one refresh. Pages react with htmx (`hx-trigger="sse:gpus"`) and poll as a
// fallback when the stream is unavailable.
type Hub struct {
	listener  *models.Listener
	logger    *slog.Logger
	metrics   *Metrics
	coalesce  time.Duration
	keepalive time.Duration
	done      chan struct{}
}

// NewHub returns a hub over listener.
func NewHub(listener *models.Listener, logger *slog.Logger, metrics *Metrics) *Hub {
	return &Hub{listener: listener, logger: logger, metrics: metrics, coalesce: time.Second, keepalive: 20 * time.Second, done: make(chan struct{})}
}

// Close ends every open stream, so a graceful shutdown need not wait for
// browsers to hang up.
func (h *Hub) Close() {
	select {
	case <-h.done:
	default:
		close(h.done)
	}
}

// Stream handles GET /events?topics=gpus,nodes.
func (h *Hub) Stream(c echo.Context) error {
	topics := []string{}
	for t := range strings.SplitSeq(c.QueryParam("topics"), ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if !slices.Contains(sseTopics, t) {
			return handlers.Errorf(http.StatusBadRequest, "invalid_topic", "unknown topic %q; choose from %s", t, strings.Join(sseTopics, ", "))
		}
		topics = append(topics, t)
	}
	if len(topics) == 0 {
		topics = sseTopics
	}
	events, cancel := h.listener.Subscribe(topics...)
	defer cancel()

	w := c.Response()
	w.Header().Set(echo.HeaderContentType, "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 3000\n: connected\n\n"); err != nil {
		return nil
	}
	w.Flush()
	h.metrics.sseClients.Inc()
	defer h.metrics.sseClients.Dec()

	flush := time.NewTicker(h.coalesce)
	defer flush.Stop()
	ping := time.NewTicker(h.keepalive)
	defer ping.Stop()
	pending := map[string]string{}
	ctx := c.Request().Context()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.done:
			return nil
		case e := <-events:
			pending[e.Topic] = e.Payload
		case <-flush.C:
			if len(pending) == 0 {
				continue
			}
			for _, t := range topics {
				p, ok := pending[t]
				if !ok {
					continue
				}
				if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", t, strings.ReplaceAll(p, "\n", " ")); err != nil {
					return nil
				}
			}
			clear(pending)
			w.Flush()
		case <-ping.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return nil
			}
			w.Flush()
		}
	}
}
