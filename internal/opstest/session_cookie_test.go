package opstest

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// signInCookie signs email in as a browser would, without an identity
// provider: it stores a live session row and seals its cookie with the
// session key of serverEnv, in the format web.Sessions opens.
func signInCookie(t testing.TB, pool *pgxpool.Pool, email string) *http.Cookie {
	t.Helper()
	opaque := rand.Text()
	hash := sha256.Sum256([]byte(opaque))
	expires := time.Now().Add(time.Hour)
	if _, err := pool.Exec(context.Background(), `INSERT INTO sessions (token_hash, user_id, via, ip, user_agent, expires_at)
		SELECT $1, id, 'opstest', '127.0.0.1', 'opstest', $2 FROM users WHERE lower(email) = lower($3)`,
		hash[:], expires, email); err != nil {
		t.Fatalf("store a session for %s: %v", email, err)
	}
	key := strings.TrimPrefix(sessionKeyEnv, "GPUSCHED_SESSION_KEY=")
	sum := sha256.Sum256(append([]byte("gpusched session v1\x00"), key...))
	block, err := aes.NewCipher(sum[:])
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(map[string]any{"s": opaque, "e": expires.Unix()})
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	sealed := aead.Seal(nonce, nonce, raw, []byte("gpusched_session"))
	return &http.Cookie{Name: "gpusched_session", Value: base64.RawURLEncoding.EncodeToString(sealed)}
}
