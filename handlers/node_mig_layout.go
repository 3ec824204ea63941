package handlers

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// NodeMIGLayoutPut handles PUT /api/v1/cluster/nodes/{name}/mig-layout
// (admins): it declares the node's MIG layout, which its agent applies to
// its free GPUs. A layout that does not parse, names a GPU the node lacks,
// or asks a GPU for a profile it does not offer or more than fits is a 400
// naming the problem.
func (h *Handlers) NodeMIGLayoutPut(c echo.Context) error {
	u := userOf(c)
	var r api.MIGLayoutRequest
	if _, err := readJSON(c, &r); err != nil {
		return err
	}
	var out api.MIGLayoutStatus
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		n, err := models.GetNodeByName(ctx, tx, c.Param("name"))
		if err != nil {
			return fromModel(err, "node "+c.Param("name"))
		}
		layout, err := h.checkMIGLayout(ctx, tx, n, r.Layout)
		if err != nil {
			return err
		}
		if err := models.SetNodeMIGLayout(ctx, tx, n.ID, layout, u.ID, h.Now()); err != nil {
			return err
		}
		out = api.MIGLayoutStatus{Node: n.Name, Layout: layout, Report: n.MIGLayoutReport, ReportedAt: n.MIGLayoutReportedAt}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// checkMIGLayout parses and checks a declared layout against node n's
// GPUs and returns it written canonically; nil stays nil (none declared).
func (h *Handlers) checkMIGLayout(ctx context.Context, tx *models.Tx, n *models.Node, text *string) (*string, error) {
	if text == nil {
		return nil, nil
	}
	if len(*text) > 2000 {
		return nil, invalid("layout", "is %d characters; at most 2000", len(*text))
	}
	l, err := gpu.ParseLayout(*text)
	if err != nil {
		return nil, invalid("layout", "%s", strings.TrimPrefix(err.Error(), "gpu: "))
	}
	gpus, err := models.NodeGPUModels(ctx, tx, n.ID)
	if err != nil {
		return nil, err
	}
	if err := gpu.CheckLayout(l, gpus); err != nil {
		return nil, invalid("layout", "%v", err)
	}
	s := l.String()
	return &s, nil
}
