package web

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// RateLimit is a token bucket per client address: Burst requests at once,
// then one every Every.
type RateLimit struct {
	Every time.Duration
	Burst int
}

// DefaultSignInRate is per client address: generous, since a whole team
// may sign in from behind one NAT (a sign-in is two requests): 120 at once,
// then two a second.
var DefaultSignInRate = RateLimit{Every: 500 * time.Millisecond, Burst: 120}

// DefaultSignInAccountRate is per account (an email for the dev sign-in, a
// provider's subject for SSO): 10 sign-ins at once, then one a minute.
var DefaultSignInAccountRate = RateLimit{Every: time.Minute, Burst: 10}

// accountLimit returns the per-account sign-in limiter handlers call.
func accountLimit(r RateLimit) func(account string) bool {
	if r.Every <= 0 {
		r = DefaultSignInAccountRate
	}
	store := middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
		Rate: rate.Every(r.Every), Burst: r.Burst, ExpiresIn: 30 * time.Minute,
	})
	return func(account string) bool {
		ok, _ := store.Allow(account)
		return ok
	}
}

// signInLimit rate-limits the sign-in routes per client address: 429 with
// Retry-After once the bucket is empty.
func signInLimit(r RateLimit) echo.MiddlewareFunc {
	if r.Every <= 0 {
		r = DefaultSignInRate
	}
	store := middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
		Rate: rate.Every(r.Every), Burst: r.Burst, ExpiresIn: 10 * time.Minute,
	})
	retry := strconv.Itoa(int(math.Ceil(r.Every.Seconds())))
	return middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Store:               store,
		IdentifierExtractor: func(c echo.Context) (string, error) { return c.RealIP(), nil },
		DenyHandler: func(c echo.Context, _ string, _ error) error {
			c.Response().Header().Set("Retry-After", retry)
			return handlers.Errorf(http.StatusTooManyRequests, api.CodeRateLimited, "too many sign-in attempts; try again in %s seconds", retry)
		},
		ErrorHandler: func(c echo.Context, err error) error { return err },
	})
}
