package web

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// tokenCache keeps recently authenticated tokens (with their owners) for a
// short while, so API calls do not each cost a database look-up. Revoking a
// token or changing a user's role sends NOTIFY on the tokens channel, and
// every replica empties its cache at once; the TTL bounds anything missed.
type tokenCache struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	m  map[[32]byte]cachedToken
}

type cachedToken struct {
	tok     *models.APIToken
	expires time.Time
}

const tokenCacheMax = 10000

func newTokenCache(ttl time.Duration, now func() time.Time) *tokenCache {
	return &tokenCache{ttl: ttl, now: now, m: map[[32]byte]cachedToken{}}
}

func (c *tokenCache) get(plain string) (*models.APIToken, bool) {
	key := sha256.Sum256([]byte(plain))
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	now := c.now()
	if !ok || !now.Before(e.expires) || (e.tok.ExpiresAt != nil && !now.Before(*e.tok.ExpiresAt)) {
		return nil, false
	}
	return e.tok, true
}

func (c *tokenCache) put(plain string, tok *models.APIToken) {
	key := sha256.Sum256([]byte(plain))
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= tokenCacheMax {
		clear(c.m)
	}
	c.m[key] = cachedToken{tok: tok, expires: c.now().Add(c.ttl)}
}

func (c *tokenCache) clear() {
	c.mu.Lock()
	clear(c.m)
	c.mu.Unlock()
}

// watch empties the cache on every tokens signal until ctx ends.
func (c *tokenCache) watch(ctx context.Context, l *models.Listener) {
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
