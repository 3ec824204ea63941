package handlers

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SessionOriginCookie is the cookie of the session origin: who may reach
// the session under its path. It starts with DashboardCookiePrefix, so the
// proxy never forwards it to a session's server nor lets one set it.
const SessionOriginCookie = DashboardCookiePrefix + "sorigin"

// HandoffTTL is how long a handoff from the dashboard to the session
// origin may wait before it is redeemed.
const HandoffTTL = 60 * time.Second

// SessionCookieTTL bounds the session origin's cookie.
const SessionCookieTTL = 12 * time.Hour

// errHandoff is any handoff or cookie that does not verify.
var errHandoff = errors.New("handlers: session handoff not valid")

// SessionHandoff signs the single-use handoffs that move a signed-in user
// from the dashboard's /s/{id}/ to the session origin, and the cookies the
// session origin sets from them. One key, derived from the session key;
// redeemed handoffs are remembered until they expire (one replica: a
// handoff is redeemed on the replica that serves the session origin).
type SessionHandoff struct {
	key  []byte
	mu   sync.Mutex
	used map[string]time.Time // nonce → expiry
}

// NewSessionHandoff derives the handoff key from the session key.
func NewSessionHandoff(sessionKey []byte) *SessionHandoff {
	m := hmac.New(sha256.New, sessionKey)
	m.Write([]byte("gpusched session-origin handoff v1"))
	return &SessionHandoff{key: m.Sum(nil), used: map[string]time.Time{}}
}

// sign returns payload.mac.
func (s *SessionHandoff) sign(kind, payload string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(kind + "|" + payload))
	return payload + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Bearer is who a handoff or a cookie names: a user, through one of
// their browser sessions on the dashboard (signing out there ends it).
type Bearer struct{ UserID, BrowserSession int64 }

// open verifies v, a value of kind for session job, and returns its fields
// after the job and the expiry: user, browser session, then any rest.
func (s *SessionHandoff) open(kind, v string, job int64, n int, now time.Time) ([]string, Bearer, error) {
	i := strings.LastIndexByte(v, '.')
	if i < 0 || !hmac.Equal([]byte(s.sign(kind, v[:i])), []byte(v)) {
		return nil, Bearer{}, errHandoff
	}
	f := strings.Split(v[:i], ".")
	if len(f) != n || f[0] != strconv.FormatInt(job, 10) {
		return nil, Bearer{}, errHandoff
	}
	exp, err1 := strconv.ParseInt(f[1], 10, 64)
	u, err2 := strconv.ParseInt(f[2], 10, 64)
	bs, err3 := strconv.ParseInt(f[3], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil || !now.Before(time.Unix(exp, 0)) {
		return nil, Bearer{}, errHandoff
	}
	return f, Bearer{UserID: u, BrowserSession: bs}, nil
}

// Mint returns a handoff for b to session job, good once within HandoffTTL.
func (s *SessionHandoff) Mint(b Bearer, job int64, now time.Time) string {
	var r [16]byte
	_, _ = rand.Read(r[:])
	return s.sign("handoff", fmt.Sprintf("%d.%d.%d.%d.%s", job, now.Add(HandoffTTL).Unix(), b.UserID, b.BrowserSession,
		base64.RawURLEncoding.EncodeToString(r[:])))
}

// Redeem checks a handoff for session job and spends it; it returns whom it names.
func (s *SessionHandoff) Redeem(t string, job int64, now time.Time) (Bearer, error) {
	f, b, err := s.open("handoff", t, job, 5, now)
	if err != nil {
		return Bearer{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, exp := range s.used {
		if now.After(exp) {
			delete(s.used, n)
		}
	}
	if _, seen := s.used[f[4]]; seen {
		return Bearer{}, errHandoff
	}
	s.used[f[4]] = now.Add(HandoffTTL + time.Minute)
	return b, nil
}

// Cookie returns the session origin's cookie value for b on session job.
func (s *SessionHandoff) Cookie(b Bearer, job int64, now time.Time) string {
	return s.sign("cookie", fmt.Sprintf("%d.%d.%d.%d", job, now.Add(SessionCookieTTL).Unix(), b.UserID, b.BrowserSession))
}

// CookieBearer checks a session origin cookie for session job and returns whom it names.
func (s *SessionHandoff) CookieBearer(v string, job int64, now time.Time) (Bearer, error) {
	_, b, err := s.open("cookie", v, job, 4, now)
	return b, err
}
