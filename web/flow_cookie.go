package web

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// FlowCookie holds a sign-in in progress (state, nonce, PKCE verifier),
// sealed with the session keys, for a few minutes. Nothing about the flow is
// kept server-side.
const FlowCookie = "gpusched_signin"

type flowPayload struct {
	Value   json.RawMessage `json:"v"`
	Expires int64           `json:"e"`
}

// SetFlow seals v (JSON) into the flow cookie for ttl.
func (s *Sessions) SetFlow(c echo.Context, v any, ttl time.Duration) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("web: seal sign-in flow: %w", err)
	}
	raw, err = json.Marshal(flowPayload{Value: raw, Expires: s.now().Add(ttl).Unix()})
	if err != nil {
		return fmt.Errorf("web: seal sign-in flow: %w", err)
	}
	aead := s.aeads[0]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(raw)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return fmt.Errorf("web: seal sign-in flow: %w", err)
	}
	sealed := aead.Seal(nonce, nonce, raw, []byte(FlowCookie))
	c.SetCookie(s.flowCookie(base64.RawURLEncoding.EncodeToString(sealed), int(ttl.Seconds())))
	return nil
}

// TakeFlow opens the flow cookie into v and clears it (a flow is used once).
// It reports false when there is no live flow.
func (s *Sessions) TakeFlow(c echo.Context, v any) bool {
	c.SetCookie(s.flowCookie("", -1))
	ck, err := c.Request().Cookie(FlowCookie)
	if err != nil || ck.Value == "" {
		return false
	}
	var p flowPayload
	if !s.open(ck.Value, FlowCookie, &p) || s.now().Unix() >= p.Expires {
		return false
	}
	return json.Unmarshal(p.Value, v) == nil
}

// flowCookie is Lax so that the provider's top-level redirect back carries it.
func (s *Sessions) flowCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: FlowCookie, Value: value, Path: "/auth/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode,
	}
}
