package handlers

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// AdminNodeMIGLayout handles POST /admin/nodes/{name}/mig-layout: the
// nodes page's form declares the node's MIG layout (empty: none). A layout
// the node's GPUs cannot take comes back on the page with the problem
// named, as a 400.
func (h *Handlers) AdminNodeMIGLayout(c echo.Context) error {
	u := userOf(c)
	text := strings.TrimSpace(c.FormValue("layout"))
	var layout *string
	if text != "" {
		layout = &text
	}
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		n, err := models.GetNodeByName(ctx, tx, c.Param("name"))
		if err != nil {
			return fromModel(err, "node "+c.Param("name"))
		}
		checked, err := h.checkMIGLayout(ctx, tx, n, layout)
		if err != nil {
			return err
		}
		return models.SetNodeMIGLayout(ctx, tx, n.ID, checked, u.ID, h.Now())
	})
	var bad *APIError
	if errors.As(err, &bad) && bad.Status == http.StatusBadRequest {
		return h.adminNodesPage(c, http.StatusBadRequest, c.Param("name")+": "+bad.Message)
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/admin/nodes")
}
