package handlers

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// DashboardCookiePrefix starts the name of every cookie of the dashboard
// (its session, its CSRF token): the session proxy never forwards them to
// a session's server, nor lets one set them.
const DashboardCookiePrefix = "gpusched_"

// sessionTouchEvery bounds how often proxied requests record a session's
// activity.
const sessionTouchEvery = 30 * time.Second

// sessionProxyState is what the proxy keeps in memory: when each session
// last recorded activity, and when each admin's opening of another's
// session was last audited.
var sessionProxyState struct {
	touched sync.Map // job id → time.Time
	audited sync.Map // "admin id/job id" → time.Time
}

// SessionProxy handles /s/{id}/…: HTTP and WebSocket to the session's
// server, through the node agent that runs it. Only the owner gets through
// (and admins, audited); another member gets a 404, as if it did not
// exist. The dashboard's cookies and any Authorization never reach the
// server; the request is signed for the agent with its node token's key.
// The dashboard's CSRF token is not asked for (the server's own XSRF check
// applies), and the dashboard's session cookie is SameSite=Lax, so another
// site cannot post through the proxy as the owner.
func (h *Handlers) SessionProxy(c echo.Context) error {
	id, err := jobID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := userOf(c)
	s, err := models.GetInteractive(ctx, h.DB.Bun, id)
	if err != nil {
		return fromModel(err, fmt.Sprintf("session %d", id))
	}
	if s.Job.OwnerID != u.ID && !u.IsAdmin() {
		return Errorf(http.StatusNotFound, api.CodeNotFound, "session %d not found", id)
	}
	if c.Param("*") == "" && !strings.HasSuffix(c.Request().URL.Path, "/") {
		return c.Redirect(http.StatusSeeOther, api.SessionPath(id))
	}
	if h.Config.SessionOrigin != "" && !OnSessionOrigin(c) {
		return h.sessionHandoff(c, u, id)
	}
	if s.Job.State != models.JobRunning || s.Session.ReadyAt == nil || s.Session.NodeID == nil {
		return sessionNotReady(c, s)
	}
	now := h.Now()
	key, err := models.InteractiveSigningKey(ctx, h.DB.Bun, *s.Session.NodeID, s.Session.TokenPrefix, now)
	if err != nil {
		return fromModel(err, fmt.Sprintf("the node token of session %d", id))
	}
	target, err := url.Parse(s.Session.AgentURL)
	if err != nil {
		return fmt.Errorf("handlers: session %d: agent URL: %w", id, err)
	}
	if s.Job.OwnerID != u.ID {
		if err := h.auditAdminOpen(ctx, c, u, id, now); err != nil {
			return err
		}
	}
	if s.Session.Kind != models.SessionJupyter {
		h.touchSession(id, now) // Jupyter tells its own activity (through the agent)
	}
	// The dashboard's page headers are for its own pages; the server sends
	// its own (Jupyter's CSP allows its inline scripts).
	hdr := c.Response().Header()
	hdr.Del("Content-Security-Policy")
	hdr.Del("X-Frame-Options")
	proxy := &httputil.ReverseProxy{
		Director: func(out *http.Request) {
			out.URL.Scheme, out.URL.Host = target.Scheme, target.Host
			out.Header.Del("Authorization")
			out.Header.Del("X-CSRF-Token")
			stripDashboardCookies(out.Header)
			out.Header.Set(api.SessionAuthHeader, api.SignSession(key, id, now))
		},
		ModifyResponse: func(resp *http.Response) error {
			keepServerCookies(resp.Header)
			return nil
		},
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "The session's node does not answer; try again in a moment.", http.StatusBadGateway)
		},
	}
	proxy.ServeHTTP(c.Response(), c.Request())
	return nil
}

// stripDashboardCookies removes the dashboard's cookies from a request's
// Cookie headers, keeping the session server's own (Jupyter's _xsrf).
func stripDashboardCookies(h http.Header) {
	var kept []string
	for _, line := range h.Values("Cookie") {
		for _, part := range strings.Split(line, ";") {
			name, _, _ := strings.Cut(strings.TrimSpace(part), "=")
			if name != "" && !strings.HasPrefix(name, DashboardCookiePrefix) {
				kept = append(kept, strings.TrimSpace(part))
			}
		}
	}
	h.Del("Cookie")
	if len(kept) > 0 {
		h.Set("Cookie", strings.Join(kept, "; "))
	}
}

// keepServerCookies drops a response's Set-Cookie headers that would
// replace the dashboard's cookies.
func keepServerCookies(h http.Header) {
	var kept []string
	for _, line := range h.Values("Set-Cookie") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), "=")
		if !strings.HasPrefix(name, DashboardCookiePrefix) {
			kept = append(kept, line)
		}
	}
	h.Del("Set-Cookie")
	for _, line := range kept {
		h.Add("Set-Cookie", line)
	}
}

// touchSession records activity on session id, at most once per
// sessionTouchEvery, in the background (the request does not wait).
func (h *Handlers) touchSession(id int64, now time.Time) {
	if last, ok := sessionProxyState.touched.Load(id); ok && now.Sub(last.(time.Time)) < sessionTouchEvery {
		return
	}
	sessionProxyState.touched.Store(id, now)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = models.TouchInteractive(ctx, h.DB.Bun, id, now, sessionTouchEvery)
	}()
}

// auditAdminOpen records that admin u opened another's session, once an
// hour per session.
func (h *Handlers) auditAdminOpen(ctx context.Context, c echo.Context, u *models.User, id int64, now time.Time) error {
	k := fmt.Sprintf("%d/%d", u.ID, id)
	if last, ok := sessionProxyState.audited.Load(k); ok && now.Sub(last.(time.Time)) < time.Hour {
		return nil
	}
	err := models.Audit(ctx, h.DB.Bun, &models.AuditEntry{ActorUserID: &u.ID, Action: "session.open", TargetType: "job",
		TargetID: fmt.Sprint(id), RemoteAddr: c.RealIP()})
	if err != nil {
		return err
	}
	sessionProxyState.audited.Store(k, now)
	return nil
}

// sessionNotReady answers a request for a session whose server is not
// reachable yet (or any more): a short page that says where it stands and
// reloads itself while it waits.
func sessionNotReady(c echo.Context, s *models.SessionJob) error {
	j := &s.Job
	var msg string
	switch {
	case j.State == models.JobQueued && j.QueuePosition != nil:
		msg = fmt.Sprintf("Session %d is waiting for GPUs: number %d in the queue. %s", j.ID, *j.QueuePosition, j.PendingReason)
	case j.State == models.JobQueued || j.State == models.JobScheduled || j.State == models.JobAllocating:
		msg = fmt.Sprintf("Session %d is waiting for GPUs.", j.ID)
	case j.State == models.JobRunning:
		msg = fmt.Sprintf("Session %d is starting its server.", j.ID)
	default:
		where := j.Workdir
		if where == "" {
			where = "your home directory"
		}
		msg = fmt.Sprintf("Session %d has ended (%s). Saved files stay on its node in %s.", j.ID, j.State, where)
		return c.HTML(http.StatusNotFound, sessionPage(msg, false))
	}
	c.Response().Header().Set("Retry-After", "3")
	return c.HTML(http.StatusServiceUnavailable, sessionPage(msg, true))
}

// sessionPage is the small page of sessionNotReady, msg escaped.
func sessionPage(msg string, refresh bool) string {
	meta := ""
	if refresh {
		meta = `<meta http-equiv="refresh" content="3">`
	}
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
		meta + `<title>Session</title></head><body><main class="container"><p>` +
		template.HTMLEscapeString(msg) + `</p><p><a href="/sessions">Your sessions</a></p></main></body></html>`
}
