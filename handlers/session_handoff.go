package handlers

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/models"
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

// SessionHandoff moves a signed-in user from the dashboard's /s/{id}/ to
// the session origin through single-use handoffs, and signs the cookies the
// session origin sets from them. A handoff is a random token stored hashed
// in PostgreSQL (models.CreateSessionHandoff), so any replica redeems what
// any replica minted, and only once; the cookies are signed with one key,
// derived from the session key the replicas share.
type SessionHandoff struct {
	key []byte
}

// NewSessionHandoff derives the cookie key from the session key.
func NewSessionHandoff(sessionKey []byte) *SessionHandoff {
	m := hmac.New(sha256.New, sessionKey)
	m.Write([]byte("gpusched session-origin handoff v1"))
	return &SessionHandoff{key: m.Sum(nil)}
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

// Mint records and returns a handoff for b to session job, good once
// within HandoffTTL, on any replica.
func (s *SessionHandoff) Mint(ctx context.Context, db bun.IDB, b Bearer, job int64, now time.Time) (string, error) {
	var r [32]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("handlers: handoff to session %d: %w", job, err)
	}
	t := base64.RawURLEncoding.EncodeToString(r[:])
	if err := models.CreateSessionHandoff(ctx, db, t, job, b.UserID, b.BrowserSession, now.Add(HandoffTTL), now); err != nil {
		return "", err
	}
	return t, nil
}

// Redeem spends handoff t for session job and returns whom it names; a
// token unknown, spent, expired or for another session is errHandoff.
func (s *SessionHandoff) Redeem(ctx context.Context, db bun.IDB, t string, job int64, now time.Time) (Bearer, error) {
	if len(t) != 43 { // 32 random bytes, base64url: nothing else was minted
		return Bearer{}, errHandoff
	}
	u, bs, err := models.RedeemSessionHandoff(ctx, db, t, job, now)
	if errors.Is(err, models.ErrNotFound) {
		return Bearer{}, errHandoff
	}
	if err != nil {
		return Bearer{}, err
	}
	return Bearer{UserID: u, BrowserSession: bs}, nil
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
