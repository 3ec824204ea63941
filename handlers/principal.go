package handlers

import (
	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

const principalKey = "gpusched.principal"

// Principal is who is calling: a user (through a session or a personal
// token) or a node agent (through a node token).
type Principal struct {
	User  *models.User
	Node  *models.Node
	Token *models.APIToken // nil for browser sessions
	// SessionID is the browser session's row (0 for tokens).
	SessionID int64
}

// SetPrincipal records the caller on the request context.
func SetPrincipal(c echo.Context, p *Principal) { c.Set(principalKey, p) }

// PrincipalOf returns the caller, or nil when anonymous.
func PrincipalOf(c echo.Context) *Principal {
	p, _ := c.Get(principalKey).(*Principal)
	return p
}

// userOf returns the calling user or nil.
func userOf(c echo.Context) *models.User {
	if p := PrincipalOf(c); p != nil {
		return p.User
	}
	return nil
}
