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

// open verifies v and returns its fields (user, job, expiry, rest).
func (s *SessionHandoff) open(kind, v string, now time.Time) ([]string, error) {
	i := strings.LastIndexByte(v, '.')
	if i < 0 || !hmac.Equal([]byte(s.sign(kind, v[:i])), []byte(v)) {
		return nil, errHandoff
	}
	f := strings.Split(v[:i], ".")
	if len(f) < 3 {
		return nil, errHandoff
	}
	exp, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || !now.Before(time.Unix(exp, 0)) {
		return nil, errHandoff
	}
	return f, nil
}

// Mint returns a handoff for user to session job, good once within HandoffTTL.
func (s *SessionHandoff) Mint(user, job int64, now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return s.sign("handoff", fmt.Sprintf("%d.%d.%d.%s", user, job, now.Add(HandoffTTL).Unix(), base64.RawURLEncoding.EncodeToString(b[:])))
}

// Redeem checks a handoff for session job and spends it; it returns its user.
func (s *SessionHandoff) Redeem(t string, job int64, now time.Time) (int64, error) {
	f, err := s.open("handoff", t, now)
	if err != nil || len(f) != 4 || f[1] != strconv.FormatInt(job, 10) {
		return 0, errHandoff
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, exp := range s.used {
		if now.After(exp) {
			delete(s.used, n)
		}
	}
	if _, seen := s.used[f[3]]; seen {
		return 0, errHandoff
	}
	s.used[f[3]] = now.Add(HandoffTTL + time.Minute)
	return strconv.ParseInt(f[0], 10, 64)
}

// Cookie returns the session origin's cookie value for user on session job.
func (s *SessionHandoff) Cookie(user, job int64, now time.Time) string {
	return s.sign("cookie", fmt.Sprintf("%d.%d.%d", user, job, now.Add(SessionCookieTTL).Unix()))
}

// CookieUser checks a session origin cookie for session job and returns its user.
func (s *SessionHandoff) CookieUser(v string, job int64, now time.Time) (int64, error) {
	f, err := s.open("cookie", v, now)
	if err != nil || len(f) != 3 || f[1] != strconv.FormatInt(job, 10) {
		return 0, errHandoff
	}
	return strconv.ParseInt(f[0], 10, 64)
}
