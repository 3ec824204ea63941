package node

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// sessionHandler forwards the control plane's requests for /s/{job}/… to
// the loopback port of that session's server, HTTP and WebSocket alike.
// Only requests signed with the node token's key (api.SignSession) get
// through; anything else is a 404, as is a session not running here.
type sessionHandler struct {
	book *sessionBook
	key  []byte
	now  func() time.Time
}

func (h *sessionHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/s/")
	idText, _, _ := strings.Cut(rest, "/")
	id, err := strconv.ParseInt(idText, 10, 64)
	if !ok || err != nil || id <= 0 {
		http.NotFound(w, r)
		return
	}
	if !api.VerifySession(h.key, id, r.Header.Get(api.SessionAuthHeader), h.now()) {
		http.Error(w, "not signed by the control plane", http.StatusForbidden)
		return
	}
	sr, ok := h.book.get(id)
	if !ok {
		http.NotFound(w, r)
		return
	}
	prefix := strings.TrimSuffix(api.SessionPath(id), "/")
	proxy := &httputil.ReverseProxy{
		Director: func(out *http.Request) {
			out.URL.Scheme, out.URL.Host = "http", "127.0.0.1:"+strconv.Itoa(sr.port)
			out.Header.Del(api.SessionAuthHeader)
			if sr.strip {
				out.URL.Path = strings.TrimPrefix(out.URL.Path, prefix)
				out.URL.RawPath = ""
				if out.URL.Path == "" {
					out.URL.Path = "/"
				}
				out.Header.Set("X-Forwarded-Prefix", prefix)
			}
		},
		FlushInterval: -1, // stream: event streams, long polls
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "the session's server does not answer: "+err.Error(), http.StatusBadGateway)
		},
	}
	proxy.ServeHTTP(w, r)
}

// serveSessions serves the session listener on l until ctx ends.
func (a *Agent) serveSessions(ctx context.Context, l net.Listener) {
	key := sha256.Sum256([]byte(a.Client.Token))
	srv := &http.Server{Handler: &sessionHandler{book: &a.sessions, key: key[:], now: time.Now},
		ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		a.Logger.Warn("node: the session listener stopped", "err", err)
	}
}

// sessionURL is where the control plane reaches the session listener l:
// SessionURL when set, else l's address (with the host's name when it
// listens on every address).
func (a *Agent) sessionURL(l net.Listener) string {
	if a.SessionURL != "" {
		return strings.TrimRight(a.SessionURL, "/")
	}
	host, port, _ := net.SplitHostPort(l.Addr().String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = a.Hostname
	}
	return "http://" + net.JoinHostPort(host, port)
}

// tokenPrefix is the visible prefix of the agent's node token
// ("gsn_" and 8 characters), which names it to the control plane.
func tokenPrefix(token string) string {
	if len(token) < 12 {
		return ""
	}
	return token[:12]
}

// reportReady is the session book's report: the session's server answers
// and this agent's listener at url forwards to it (with the server's last
// activity, when known).
func (a *Agent) reportReady(url string) func(ctx context.Context, jobID int64, last *time.Time) error {
	return func(ctx context.Context, jobID int64, last *time.Time) error {
		id := a.NodeID()
		if id == 0 {
			return errNotRegistered
		}
		err := a.Client.SessionReady(ctx, id, jobID, api.SessionReady{AgentURL: url, TokenPrefix: tokenPrefix(a.Client.Token), LastActivity: last})
		if err != nil {
			return fmt.Errorf("node: report session %d ready: %w", jobID, err)
		}
		return nil
	}
}
