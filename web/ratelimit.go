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
)

// RateLimit is a token bucket per client address: Burst requests at once,
// then one every Every.
type RateLimit struct {
	Every time.Duration
	Burst int
}

// DefaultSignInRate lets a browser through a few sign-ins in a row, then one
// every 3 seconds (20 a minute).
var DefaultSignInRate = RateLimit{Every: 3 * time.Second, Burst: 10}

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
			return handlers.Errorf(http.StatusTooManyRequests, "rate_limited", "too many sign-in attempts; try again in %s seconds", retry)
		},
		ErrorHandler: func(c echo.Context, err error) error { return err },
	})
}
