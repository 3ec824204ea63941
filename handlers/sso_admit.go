package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/signin"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// refusal is a sign-in turned away, with the reason shown to the person.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

// admit decides, in one transaction, who an identity signs in as:
//   - a known identity (provider, subject) signs in as its user;
//   - otherwise the provider must vouch for the email (verified), and the
//     identity is linked to the user with that email, or a new user is
//     created when the policy allows the email (GPUSCHED_ADMINS become admins,
//     everyone else joins as a member);
//   - disabled users are refused.
func (h *Handlers) admit(c echo.Context, id signin.Identity) (*models.User, error) {
	var user *models.User
	now := h.Now()
	policy := h.Config.SignInPolicy
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		known, err := models.GetIdentity(ctx, tx, id.Provider, id.Subject)
		switch {
		case err == nil:
			if user, err = models.GetUser(ctx, tx, known.UserID); err != nil {
				return err
			}
			if user.DisabledAt != nil {
				return &refusal{"This account is disabled. Ask an admin to enable it."}
			}
			return models.TouchIdentity(ctx, tx, known.ID, id.Email, id.EmailVerified, now)
		case !errors.Is(err, models.ErrNotFound):
			return err
		}
		email, err := models.NormalizeEmail(id.Email)
		if err != nil || !id.EmailVerified {
			return &refusal{"Your sign-in provider did not confirm a verified email address. Verify your email there, then sign in again."}
		}
		user, err = models.GetUserByEmail(ctx, tx, email)
		switch {
		case err == nil:
			if user.DisabledAt != nil {
				return &refusal{"This account is disabled. Ask an admin to enable it."}
			}
		case errors.Is(err, models.ErrNotFound):
			if user, err = h.join(ctx, tx, c, id, email, policy); err != nil {
				return err
			}
		default:
			return err
		}
		link := &models.Identity{UserID: user.ID, Provider: id.Provider, Subject: id.Subject, Email: email, EmailVerified: true, LastLoginAt: &now}
		if err := models.CreateIdentity(ctx, tx, link); err != nil {
			return err
		}
		return models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &user.ID, Action: "identity.link", TargetType: "user",
			TargetID: fmt.Sprint(user.ID), Details: map[string]any{"provider": id.Provider, "subject": id.Subject, "email": email}, RemoteAddr: c.RealIP()})
	})
	if err != nil {
		if r := (*refusal)(nil); errors.As(err, &r) {
			return nil, r
		}
		return nil, fmt.Errorf("handlers: admit %s/%s: %w", id.Provider, id.Subject, err)
	}
	return user, nil
}

// join creates the user for a new verified email the policy allows.
func (h *Handlers) join(ctx context.Context, tx *models.Tx, c echo.Context, id signin.Identity, email string, policy signin.Policy) (*models.User, error) {
	if !policy.Allows(email) {
		return nil, &refusal{fmt.Sprintf("%s may not sign in here. Ask an admin to allow your address or your domain.", email)}
	}
	role := models.RoleMember
	if policy.IsAdmin(email) {
		role = models.RoleAdmin
	}
	name := strings.TrimSpace(oneLineOf(id.Name)) // the provider's display name, which its user chose
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	u, err := models.CreateUser(ctx, tx, email, name, role)
	if err != nil {
		return nil, err
	}
	return u, models.Audit(ctx, tx, &models.AuditEntry{ActorUserID: &u.ID, Action: "user.create", TargetType: "user",
		TargetID: fmt.Sprint(u.ID), Details: map[string]any{"via": id.Provider, "role": role}, RemoteAddr: c.RealIP()})
}
