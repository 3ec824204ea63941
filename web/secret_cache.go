package web

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// secretCache keeps what a secret (an API token, a session id) stood for
// when it was last looked up, for a short while, so that requests do not
// each cost database round trips. Entries are keyed by the secret's hash.
// Every signal on the tokens channel (a token revoked, a session ended, a
// role changed, a user disabled) empties it on every replica at once; the
// TTL bounds anything missed.
type secretCache[V any] struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	m  map[[32]byte]cachedSecret[V]
}

type cachedSecret[V any] struct {
	v       V
	until   time.Time // the TTL
	expires time.Time // the secret's own end; zero for none
}

// secretCacheMax bounds the cache: past it, it starts again empty.
const secretCacheMax = 10000

func newSecretCache[V any](ttl time.Duration, now func() time.Time) *secretCache[V] {
	return &secretCache[V]{ttl: ttl, now: now, m: map[[32]byte]cachedSecret[V]{}}
}

// tokenCache holds authenticated API tokens with their owners.
type tokenCache = secretCache[*models.APIToken]

// sessionCache holds signed-in sessions with their users.
type sessionCache = secretCache[SignedIn]

func (c *secretCache[V]) get(secret string) (V, bool) {
	key := sha256.Sum256([]byte(secret))
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	now := c.now()
	if !ok || !now.Before(e.until) || (!e.expires.IsZero() && !now.Before(e.expires)) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// put caches v for secret until the TTL passes or expires (zero: never).
func (c *secretCache[V]) put(secret string, v V, expires time.Time) {
	key := sha256.Sum256([]byte(secret))
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= secretCacheMax {
		clear(c.m)
	}
	c.m[key] = cachedSecret[V]{v: v, until: c.now().Add(c.ttl), expires: expires}
}

func (c *secretCache[V]) drop(secret string) {
	key := sha256.Sum256([]byte(secret))
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}

func (c *secretCache[V]) clear() {
	c.mu.Lock()
	clear(c.m)
	c.mu.Unlock()
}

// watch empties the cache on every tokens signal until ctx ends.
func (c *secretCache[V]) watch(ctx context.Context, l *models.Listener) {
	events, cancel := l.Subscribe(models.Topic(models.ChannelTokens))
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case <-events:
			c.clear()
		}
	}
}
