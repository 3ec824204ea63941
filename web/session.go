package web

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// SessionCookie is the name of the browser session cookie.
const SessionCookie = "gpusched_session"

// Sessions keeps browser sessions server-side (the sessions table): the
// cookie carries a random opaque id, sealed (AES-256-GCM) so that a forged
// or tampered cookie is refused before any database look-up. Sign-out ends
// the row, so a copied cookie dies with it. Several keys may be configured:
// the first seals new cookies, every key opens old ones (rotation).
// Look-ups are cached briefly per replica and dropped on every signal of the
// tokens channel (sign-out elsewhere, role change, disabling).
type Sessions struct {
	aeads    []cipher.AEAD
	secure   bool
	lifetime time.Duration
	now      func() time.Time

	db    *models.DB
	cache *sessionCache
}

type sessionPayload struct {
	ID      string `json:"s"`
	Expires int64  `json:"e"`
}

// NewSessions builds the session keeper from keys (each at least 32 bytes of
// secret). secure sets the cookie's Secure flag (on for https base URLs).
// The server attaches its database (web.New).
func NewSessions(keys [][]byte, secure bool, lifetime time.Duration, now func() time.Time) (*Sessions, error) {
	if len(keys) == 0 {
		return nil, errors.New("web: sessions: no session key configured (set GPUSCHED_SESSION_KEY)")
	}
	s := &Sessions{secure: secure, lifetime: lifetime, now: now, cache: newSecretCache[SignedIn](30*time.Second, now)}
	for i, k := range keys {
		if len(k) < 32 {
			return nil, fmt.Errorf("web: sessions: key %d is %d bytes; use at least 32 (e.g. openssl rand -hex 32)", i+1, len(k))
		}
		sum := sha256.Sum256(append([]byte("gpusched session v1\x00"), k...))
		block, err := aes.NewCipher(sum[:])
		if err != nil {
			return nil, fmt.Errorf("web: sessions: %w", err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("web: sessions: %w", err)
		}
		s.aeads = append(s.aeads, aead)
	}
	return s, nil
}

// Login starts a server-side session for userID (ending the browser's
// previous one, if any) and sets the cookie.
func (s *Sessions) Login(c echo.Context, userID int64) error {
	ctx := c.Request().Context()
	if old, ok := s.opaque(c.Request()); ok {
		if err := models.EndSessionByHash(ctx, s.db.Bun, models.SessionHash(old), s.now()); err != nil {
			return fmt.Errorf("web: end the previous session: %w", err)
		}
		s.cache.drop(old)
	}
	via := c.Param("provider")
	if via == "" {
		via = "dev"
	}
	now := s.now()
	opaque := randomID()
	row := &models.Session{TokenHash: models.SessionHash(opaque), UserID: userID, Via: via, IP: c.RealIP(),
		UserAgent: c.Request().UserAgent(), CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(s.lifetime)}
	if err := models.CreateSession(ctx, s.db.Bun, row); err != nil {
		return err
	}
	sealed, err := s.seal(sessionPayload{ID: opaque, Expires: row.ExpiresAt.Unix()})
	if err != nil {
		return err
	}
	c.SetCookie(s.cookie(sealed, int(s.lifetime.Seconds())))
	return nil
}

// Logout ends the browser's session everywhere and clears the cookie.
func (s *Sessions) Logout(c echo.Context) error {
	c.SetCookie(s.cookie("", -1))
	opaque, ok := s.opaque(c.Request())
	if !ok {
		return nil
	}
	s.cache.drop(opaque)
	if err := models.EndSessionByHash(c.Request().Context(), s.db.Bun, models.SessionHash(opaque), s.now()); err != nil {
		return fmt.Errorf("web: sign out: %w", err)
	}
	return nil
}

// SignedIn is a live session and its user.
type SignedIn struct {
	SessionID int64
	User      *models.User
}

// Lookup returns the live session of the request and its (enabled) user,
// from the cache or the database (marking the session seen from ip).
func (s *Sessions) Lookup(ctx context.Context, r *http.Request, ip string) (SignedIn, bool, error) {
	opaque, ok := s.opaque(r)
	if !ok {
		return SignedIn{}, false, nil
	}
	if e, ok := s.cache.get(opaque); ok {
		return e, true, nil
	}
	row, err := models.LookupSession(ctx, s.db.Bun, models.SessionHash(opaque), ip, s.now())
	if errors.Is(err, models.ErrNotFound) {
		return SignedIn{}, false, nil
	}
	if err != nil {
		return SignedIn{}, false, fmt.Errorf("web: look up session: %w", err)
	}
	u, err := models.GetUser(ctx, s.db.Bun, row.UserID)
	if errors.Is(err, models.ErrNotFound) || (err == nil && u.DisabledAt != nil) {
		return SignedIn{}, false, nil
	}
	if err != nil {
		return SignedIn{}, false, fmt.Errorf("web: load session user: %w", err)
	}
	in := SignedIn{SessionID: row.ID, User: u}
	s.cache.put(opaque, in, row.ExpiresAt)
	return in, true, nil
}

// opaque opens the session cookie into the session's opaque id.
func (s *Sessions) opaque(r *http.Request) (string, bool) {
	ck, err := r.Cookie(SessionCookie)
	if err != nil || ck.Value == "" {
		return "", false
	}
	var p sessionPayload
	if !s.open(ck.Value, SessionCookie, &p) || p.ID == "" || s.now().Unix() >= p.Expires {
		return "", false
	}
	return p.ID, true
}

func (s *Sessions) seal(p sessionPayload) (string, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("web: seal session: %w", err)
	}
	aead := s.aeads[0]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(raw)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("web: seal session: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, raw, []byte(SessionCookie))), nil
}

// open unseals value (sealed for cookie name) into v with any key.
func (s *Sessions) open(value, name string, v any) bool {
	sealed, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil {
		return false
	}
	for _, aead := range s.aeads {
		if len(sealed) < aead.NonceSize() {
			continue
		}
		raw, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(name))
		if err != nil {
			continue
		}
		return json.Unmarshal(raw, v) == nil
	}
	return false
}

func (s *Sessions) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: SessionCookie, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode,
	}
}

// randomID is 256 bits from crypto/rand, URL-safe.
func randomID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail (Go ≥ 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}
