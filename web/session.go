package web

import (
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
)

// SessionCookie is the name of the browser session cookie.
const SessionCookie = "gpusched_session"

// Sessions keeps browser sessions in a cookie that is encrypted and
// authenticated (AES-256-GCM), so nothing is stored server-side and a
// tampered cookie is simply not a session. Several keys may be configured:
// the first seals new cookies, every key opens old ones (rotation).
type Sessions struct {
	aeads    []cipher.AEAD
	secure   bool
	lifetime time.Duration
	now      func() time.Time
}

type sessionPayload struct {
	UserID   int64 `json:"u"`
	IssuedAt int64 `json:"i"`
	Expires  int64 `json:"e"`
}

// NewSessions builds the cookie sealer from keys (each at least 32 bytes of
// secret). secure sets the cookie's Secure flag (on for https base URLs).
func NewSessions(keys [][]byte, secure bool, lifetime time.Duration, now func() time.Time) (*Sessions, error) {
	if len(keys) == 0 {
		return nil, errors.New("web: sessions: no session key configured (set GPUSCHED_SESSION_KEY)")
	}
	s := &Sessions{secure: secure, lifetime: lifetime, now: now}
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

// Login starts a session for userID.
func (s *Sessions) Login(c echo.Context, userID int64) error {
	now := s.now()
	raw, err := json.Marshal(sessionPayload{UserID: userID, IssuedAt: now.Unix(), Expires: now.Add(s.lifetime).Unix()})
	if err != nil {
		return fmt.Errorf("web: seal session: %w", err)
	}
	aead := s.aeads[0]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(raw)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return fmt.Errorf("web: seal session: %w", err)
	}
	sealed := aead.Seal(nonce, nonce, raw, []byte(SessionCookie))
	c.SetCookie(s.cookie(base64.RawURLEncoding.EncodeToString(sealed), int(s.lifetime.Seconds())))
	return nil
}

// Logout ends the session.
func (s *Sessions) Logout(c echo.Context) {
	c.SetCookie(s.cookie("", -1))
}

// UserID returns the signed-in user of the request, if any live session.
func (s *Sessions) UserID(r *http.Request) (int64, bool) {
	ck, err := r.Cookie(SessionCookie)
	if err != nil || ck.Value == "" {
		return 0, false
	}
	sealed, err := base64.RawURLEncoding.DecodeString(ck.Value)
	if err != nil {
		return 0, false
	}
	for _, aead := range s.aeads {
		if len(sealed) < aead.NonceSize() {
			continue
		}
		raw, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(SessionCookie))
		if err != nil {
			continue
		}
		var p sessionPayload
		if json.Unmarshal(raw, &p) != nil || p.UserID <= 0 || s.now().Unix() >= p.Expires {
			return 0, false
		}
		return p.UserID, true
	}
	return 0, false
}

func (s *Sessions) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: SessionCookie, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode,
	}
}
