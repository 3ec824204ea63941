package handlers

import (
	"net"
	"net/netip"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ScoringAliasAuth guards the bare /v1 aliases of the scoring service: a
// request with an Authorization header goes through bearer (a personal
// token), as do all requests by default; a request without one is let in
// only when it comes from a trusted network (GPUSCHED_SCORING_TRUSTED_NETWORKS).
// The client's address is the TCP peer's, never a forwarded header, which
// anyone could forge: behind a proxy, trust the proxy's network.
func (h *Handlers) ScoringAliasAuth(bearer echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		withToken := bearer(next)
		return func(c echo.Context) error {
			if c.Request().Header.Get(echo.HeaderAuthorization) == "" && h.Scoring != nil && len(h.Scoring.Trusted) > 0 {
				if addr, ok := peerAddr(c.Request().RemoteAddr); ok && h.Scoring.trusts(addr) {
					return next(c)
				}
			}
			return withToken(c)
		}
	}
}

// peerAddr parses the IP of a RemoteAddr ("1.2.3.4:5678", "[::1]:80").
func peerAddr(remote string) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	return a, err == nil
}

// ScoringMetrics serves the Prometheus registry under /api/v1/scoring/metrics.
// It leaves compression to the server's gzip middleware (the bare /metrics
// route is exempt from it and lets promhttp compress).
func (h *Handlers) ScoringMetrics(g prometheus.Gatherer) echo.HandlerFunc {
	return echo.WrapHandler(promhttp.HandlerFor(g, promhttp.HandlerOpts{DisableCompression: true}))
}
