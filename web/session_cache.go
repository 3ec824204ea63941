package web

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// sessionCache keeps recently looked-up sessions (with their users) for a
// short while, so pages do not each cost database round trips. Every signal
// on the tokens channel (a session ended anywhere, a role changed, a user
// disabled) empties it on every replica; the TTL bounds anything missed.
type sessionCache struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	m  map[[32]byte]cachedSession
}

type cachedSession struct {
	in      SignedIn
	until   time.Time
	expires time.Time
}

const sessionCacheMax = 10000

func newSessionCache(ttl time.Duration, now func() time.Time) *sessionCache {
	return &sessionCache{ttl: ttl, now: now, m: map[[32]byte]cachedSession{}}
}

func (c *sessionCache) get(opaque string) (SignedIn, bool) {
	key := sha256.Sum256([]byte(opaque))
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	now := c.now()
	if !ok || !now.Before(e.until) || !now.Before(e.expires) {
		return SignedIn{}, false
	}
	return e.in, true
}

func (c *sessionCache) put(opaque string, in SignedIn, expires time.Time) {
	key := sha256.Sum256([]byte(opaque))
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= sessionCacheMax {
		clear(c.m)
	}
	c.m[key] = cachedSession{in: in, until: c.now().Add(c.ttl), expires: expires}
}

func (c *sessionCache) drop(opaque string) {
	key := sha256.Sum256([]byte(opaque))
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}

func (c *sessionCache) clear() {
	c.mu.Lock()
	clear(c.m)
	c.mu.Unlock()
}

// watch empties the cache on every tokens signal until ctx ends.
func (c *sessionCache) watch(ctx context.Context, l *models.Listener) {
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
