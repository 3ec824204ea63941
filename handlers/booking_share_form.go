package handlers

import (
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// readShareForm reads a booking form that asks for a share of one shared
// GPU (f.Share, "0.5"): of the shared GPU chosen (shared_gpu, the id of
// one of its slots) or of any; the GPU count and checked GPUs are ignored.
func readShareForm(c echo.Context, f *views.BookingForm, r *api.BookingRequest, loc *time.Location) error {
	share, err := strconv.ParseFloat(strings.Replace(f.Share, ",", ".", 1), 64)
	if err != nil {
		return invalid("Share", "%q is not a number like 0.5", f.Share)
	}
	r.GPUShare, r.GPUIDs, r.GPUCount = share, nil, 0
	f.SharedGPU = 0
	if s := strings.TrimSpace(c.FormValue("shared_gpu")); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id < 1 {
			return invalid("Shared GPU", "%q is not one of the shared GPUs offered", s)
		}
		f.SharedGPU = id
		r.GPUIDs, r.GPUModel = api.RefsOfIDs([]int64{id}), ""
	}
	return readFormWindow(f, r, loc)
}
