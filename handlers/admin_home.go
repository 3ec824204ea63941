package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// AdminHome handles GET /admin: the users page is the first admin section.
func (h *Handlers) AdminHome(c echo.Context) error {
	return c.Redirect(http.StatusSeeOther, "/admin/users")
}
