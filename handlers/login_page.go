package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// LoginPage handles GET /login: a button per configured identity provider,
// and the dev sign-in form when it is on (--dev on loopback).
func (h *Handlers) LoginPage(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	if userOf(c) != nil {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return h.renderLogin(c, http.StatusOK, next, "")
}

// renderLogin shows the sign-in page with an optional error.
func (h *Handlers) renderLogin(c echo.Context, status int, next, msg string) error {
	providers := h.SignIn.List()
	if len(providers) == 0 && !h.Config.DevLogin {
		return render(c, http.StatusServiceUnavailable, views.ErrorPageView(h.Page(c, "Sign in", ""), views.ErrorPage{
			Status: http.StatusServiceUnavailable, Title: "No sign-in configured",
			Message: "This server has no sign-in provider. Configure one (see the README's Sign-in section), use an API token with the gpusched CLI, or start the server with --dev on a loopback address to use the dev sign-in.",
		}))
	}
	l := views.Login{Next: next, Error: msg}
	for _, p := range providers {
		lp := views.LoginProvider{Name: p.Name, Label: p.Label}
		if ok, why := p.Available(); !ok {
			lp.Unavailable = why
		}
		l.Providers = append(l.Providers, lp)
	}
	admins, err := models.CountAdmins(c.Request().Context(), h.DB.Bun)
	if err != nil {
		return fmt.Errorf("handlers: sign-in page: %w", err)
	}
	l.NoAdmin = admins == 0
	if h.Config.DevLogin {
		l.Dev = &views.DevLogin{Email: "dev@localhost.localdomain", Next: next, NoAdmin: l.NoAdmin}
	}
	return render(c, status, views.LoginPage(h.Page(c, "Sign in", ""), l))
}
