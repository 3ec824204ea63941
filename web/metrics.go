package web

import (
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the HTTP server's Prometheus series.
type Metrics struct {
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	sseClients prometheus.Gauge
}

// NewMetrics registers the HTTP series on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gpusched_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gpusched_http_request_duration_seconds", Help: "HTTP request latency by route and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route", "method"}),
		sseClients: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gpusched_sse_clients", Help: "Browsers connected to the event stream.",
		}),
	}
	reg.MustRegister(m.requests, m.latency, m.sseClients)
	return m
}

// middleware observes each request under its route template (never the raw
// path, so ids do not explode the series).
func (m *Metrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		route := c.Path() // unknown paths fall on catch-all routes: bounded labels
		if route == "" {
			route = "unmatched"
		}
		status := c.Response().Status
		if err != nil {
			// The error handler runs after us; read the status it will send.
			c.Error(err)
			status = c.Response().Status
			err = nil
		}
		m.requests.WithLabelValues(route, c.Request().Method, strconv.Itoa(status)).Inc()
		m.latency.WithLabelValues(route, c.Request().Method).Observe(time.Since(start).Seconds())
		return err
	}
}
