package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// accountLimited reports whether account has used up its sign-ins for now
// (per-account limit, on top of the per-address one), setting Retry-After.
func (h *Handlers) accountLimited(c echo.Context, account string) bool {
	if h.SignInAccountLimit == nil || h.SignInAccountLimit(account) {
		return false
	}
	c.Response().Header().Set("Retry-After", "60")
	return true
}

// errAccountLimited is the sentence a person sees when refused by it.
const errAccountLimited = "Too many sign-ins to this account in a short time. Wait a minute, then try again."

// tooMany is the status of a sign-in refused by a rate limit.
const tooMany = http.StatusTooManyRequests
