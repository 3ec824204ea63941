package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// DevLogin handles POST /auth/dev: sign in as any email, no password. It is
// refused unless the server runs --dev on a loopback address and the request
// itself comes from loopback.
func (h *Handlers) DevLogin(c echo.Context) error {
	if !h.Config.DevLogin || !isLoopback(c.Request().RemoteAddr) {
		return Errorf(http.StatusForbidden, api.CodeDevLoginDisabled, "the dev sign-in only works with serve --dev on a loopback address")
	}
	next := safeNext(c.FormValue("next"))
	email, err := models.NormalizeEmail(c.FormValue("email"))
	if err != nil {
		page := h.Page(c, "Sign in", "")
		return render(c, http.StatusBadRequest, views.DevLoginPage(page, views.DevLogin{Email: c.FormValue("email"), Next: next, Error: "Enter an email address, like ana@example.com."}))
	}
	if h.accountLimited(c, email) {
		page := h.Page(c, "Sign in", "")
		return render(c, tooMany, views.DevLoginPage(page, views.DevLogin{Email: email, Next: next, Error: errAccountLimited}))
	}
	var user *models.User
	err = h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		u, err := models.GetUserByEmail(ctx, tx, email)
		if err == nil {
			user = u
			return nil
		}
		if !errors.Is(err, models.ErrNotFound) {
			return err
		}
		admins, err := models.CountAdmins(ctx, tx)
		if err != nil {
			return err
		}
		role := models.RoleMember
		if admins == 0 || slices.Contains(h.Config.Admins, email) {
			role = models.RoleAdmin
		}
		name, _, _ := strings.Cut(email, "@")
		if user, err = models.CreateUser(ctx, tx, email, name, role); err != nil {
			return err
		}
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &user.ID, Action: "user.create", TargetType: "user",
			TargetID: fmt.Sprint(user.ID), Details: map[string]any{"via": "dev-login", "role": role}, RemoteAddr: c.RealIP()})
	})
	if err != nil {
		return fmt.Errorf("handlers: dev login %s: %w", email, err)
	}
	if err := h.Sessions.Login(c, user.ID); err != nil {
		return err
	}
	h.log(c).Info("dev sign-in", "user", user.Email)
	return c.Redirect(http.StatusSeeOther, next)
}

// Logout handles POST /auth/logout.
func (h *Handlers) Logout(c echo.Context) error {
	if err := h.Sessions.Logout(c); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/login")
}
