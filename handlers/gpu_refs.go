package handlers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// gpuIDsOf gives the ids of the GPUs refs names, in order: node:index
// names ("sim-node-1:4") are looked up, ids taken as they are; a name the
// cluster does not know (no such node, or no such index on it) is a 400
// that says which: the request names nothing. (An id that names no GPU is
// found later, as before: 422.)
func gpuIDsOf(ctx context.Context, db bun.IDB, refs api.GPURefs) ([]int64, error) {
	ids, err := models.ResolveGPURefs(ctx, db, refs)
	var missing *models.NoSuchGPUError
	if errors.As(err, &missing) {
		return nil, &APIError{Status: http.StatusBadRequest, Code: api.CodeNoSuchGPUs, Err: err,
			Message: "gpu_ids: " + missing.Error() + "; name GPUs node:index as the pages show them (sim-node-1:4)"}
	}
	return ids, err
}

// formGPUIDs reads a form's gpu_ids: each value a GPU id (what the forms'
// checkboxes send) or names as the pages show them ("sim-node-1:4,5");
// names are looked up as gpuIDsOf does, so an unknown node or index is
// refused with a sentence that says which.
func formGPUIDs(c echo.Context, db bun.IDB) ([]int64, error) {
	params, _ := c.FormParams()
	var refs api.GPURefs
	for _, s := range params["gpu_ids"] {
		if strings.TrimSpace(s) == "" {
			continue
		}
		rs, err := api.ParseGPURefs(s)
		if err != nil {
			return nil, invalid("gpu_ids", "%v", err)
		}
		refs = append(refs, rs...)
	}
	if len(refs) == 0 {
		return nil, nil
	}
	return gpuIDsOf(c.Request().Context(), db, refs)
}

// gpuNames names GPUs as node:index ("sim-node-1:4,5"), by id.
func gpuNames(ids []int64, byID map[int64]models.BookableGPU) api.GPURefs {
	out := make(api.GPURefs, 0, len(ids))
	for _, id := range ids {
		if g, ok := byID[id]; ok {
			out = append(out, api.GPURef{ID: id, Node: g.NodeName, Index: g.Index})
		} else {
			out = append(out, api.GPURef{ID: id})
		}
	}
	return out
}

// nameGPUs fills in the node:index names of rows' named GPUs.
func nameGPUs(ctx context.Context, db bun.IDB, rows ...*models.BookingRow) error {
	var ids []int64
	for _, r := range rows {
		ids = append(ids, r.GPUIDs...)
	}
	names, err := models.GPUNamesOf(ctx, db, ids)
	if err != nil {
		return err
	}
	for _, r := range rows {
		r.GPUNames = nil
		for _, id := range r.GPUIDs {
			n := names[id].String()
			if r.GPUShare > 0 && slices.Contains(r.GPUNames, n) { // the slots of one shared GPU
				continue
			}
			r.GPUNames = append(r.GPUNames, n)
		}
	}
	return nil
}
