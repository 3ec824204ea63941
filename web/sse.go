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
	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// sseTopics are the event names browsers may subscribe to.
var sseTopics = []string{"jobs", "gpus", "nodes", "bookings", "queue", "logs", "notifications"}

// Hub pushes change signals from PostgreSQL LISTEN/NOTIFY to browsers as
// named SSE events. Each stream throttles each topic on both edges: the
// first change of a burst goes out at once, later ones within the interval
// (200 ms) are folded into one trailing event, so a change reaches a browser
// within one interval while a hundred heartbeats a second cost it at most
// five refreshes. Pages react with htmx (`hx-trigger="sse:gpus"`) and poll
// as a fallback when the stream is unavailable.
type Hub struct {
	listener  *models.Listener
	logger    *slog.Logger
	metrics   *Metrics
	interval  time.Duration
	keepalive time.Duration
	done      chan struct{}
}

// SSEInterval is the shortest gap between two events of one topic on one
// stream.
const SSEInterval = 200 * time.Millisecond

// NewHub returns a hub over listener.
func NewHub(listener *models.Listener, logger *slog.Logger, metrics *Metrics) *Hub {
	return &Hub{listener: listener, logger: logger, metrics: metrics, interval: SSEInterval, keepalive: 20 * time.Second, done: make(chan struct{})}
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
			return handlers.Errorf(http.StatusBadRequest, api.CodeInvalidTopic, "unknown topic %q; choose from %s", t, strings.Join(sseTopics, ", "))
		}
		topics = append(topics, t)
	}
	if len(topics) == 0 {
		topics = sseTopics
	}
	if !slices.Contains(topics, "notifications") {
		topics = append(topics, "notifications") // the nav bell's
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

	th := newThrottle(h.interval)
	trailing := time.NewTimer(time.Hour)
	trailing.Stop()
	defer trailing.Stop()
	ping := time.NewTicker(h.keepalive)
	defer ping.Stop()
	ctx := c.Request().Context()
	send := func(topic, payload string) error {
		_, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", topic, strings.ReplaceAll(payload, "\n", " "))
		return err
	}
	arm := func(now time.Time) {
		if wait, ok := th.next(now); ok {
			trailing.Reset(wait)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.done:
			return nil
		case e := <-events:
			now := time.Now()
			if !th.offer(e.Topic, e.Payload, now) {
				arm(now)
				continue
			}
			if send(e.Topic, e.Payload) != nil {
				return nil
			}
			w.Flush()
		case <-trailing.C:
			now := time.Now()
			due := th.due(now)
			for _, t := range topics {
				if p, ok := due[t]; ok {
					if send(t, p) != nil {
						return nil
					}
				}
			}
			if len(due) > 0 {
				w.Flush()
			}
			arm(now)
		case <-ping.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return nil
			}
			w.Flush()
		}
	}
}
