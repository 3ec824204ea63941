package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// ObserveRequest is the body of POST /v1/observe (and /api/v1/scoring/observe).
type ObserveRequest struct {
	JobType           string   `json:"job_type"`
	GPUType           string   `json:"gpu_type"`
	MeasuredRuntimeS  *float64 `json:"measured_runtime_s"`
	ColocatedJobTypes []string `json:"colocated_job_types"`
}

// ObserveResponse is the answer of POST /v1/observe: the observation is
// stored and will be folded into the model by a background job in moments.
type ObserveResponse struct {
	Status        string `json:"status"`
	ObservationID int64  `json:"observation_id"`
}

// ScoringObserve handles POST /v1/observe: a measured runtime of job_type
// on gpu_type. Bad input is refused with a 400 before it can reach the model.
func (h *Handlers) ScoringObserve(c echo.Context) error {
	if h.Scoring == nil {
		return errScoringOff
	}
	var b ObserveRequest
	if err := decodeJSON(c, &b); err != nil {
		return err
	}
	if b.MeasuredRuntimeS == nil {
		return invalid("measured_runtime_s", "is required: the measured runtime in seconds")
	}
	o := scoring.Observation{JobType: b.JobType, GPUType: b.GPUType, RuntimeS: *b.MeasuredRuntimeS, Colocated: b.ColocatedJobTypes}
	if err := o.Validate(); err != nil {
		return Errorf(http.StatusBadRequest, api.CodeInvalidField, "%s", err.Error())
	}
	var id int64
	err := h.DB.InTx(c.Request().Context(), func(ctx context.Context, tx *models.Tx) error {
		var err error
		if id, err = models.RecordObservation(ctx, tx, o, models.ObservationAPI, nil, h.Now()); err != nil {
			return err
		}
		if h.Scoring.Enqueue != nil {
			return h.Scoring.Enqueue(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ObserveResponse{Status: "ok", ObservationID: id})
}
