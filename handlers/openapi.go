package handlers

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

//go:embed openapi.json
var openAPI []byte

// OpenAPI handles GET /api/v1/openapi.json: the API's description, kept
// honest by a test that every /api/v1 route appears in it.
func (h *Handlers) OpenAPI(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPI)
}
