package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// AdminUsers handles GET /admin/users: every user with role, team and access.
func (h *Handlers) AdminUsers(c echo.Context) error {
	return h.renderAdminUsers(c, http.StatusOK, "")
}

func (h *Handlers) renderAdminUsers(c echo.Context, status int, msg string) error {
	ctx := c.Request().Context()
	users, err := models.ListUsers(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	teams, err := models.ListTeams(ctx, h.DB.Bun)
	if err != nil {
		return err
	}
	me := userOf(c)
	a := views.AdminUsers{Error: msg}
	for _, t := range teams {
		a.Teams = append(a.Teams, views.Option{Value: strconv.FormatInt(t.ID, 10), Label: t.Name})
	}
	for _, u := range users {
		row := views.AdminUser{ID: u.ID, Email: u.Email, Name: u.Name, Role: u.Role, Disabled: u.DisabledAt != nil, Self: u.ID == me.ID}
		if u.TeamID != nil {
			row.TeamID = strconv.FormatInt(*u.TeamID, 10)
		}
		a.Users = append(a.Users, row)
	}
	return render(c, status, views.AdminUsersPage(h.Page(c, "Users", "admin"), a))
}
