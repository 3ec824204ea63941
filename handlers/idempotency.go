package handlers

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// idempotent runs a state-changing request at most once per Idempotency-Key
// (per user): the first call runs do inside tx and stores its answer in the
// same transaction; a retry with the same key and body gets that answer
// again and changes nothing; the same key with another body is a 422.
// Without the header, do simply runs.
func idempotent(c echo.Context, tx *models.Tx, body []byte, do func(ctx context.Context) (int, any, error)) (int, any, error) {
	ctx := c.Request().Context()
	key := c.Request().Header.Get("Idempotency-Key")
	if key == "" {
		return do(ctx)
	}
	if len(key) > 255 {
		return 0, nil, Errorf(http.StatusBadRequest, api.CodeInvalidHeader, "Idempotency-Key is at most 255 characters")
	}
	u := userOf(c)
	sum := sha256.Sum256(body)
	prev, err := models.ClaimIdempotencyKey(ctx, tx, u.ID, key, c.Path(), sum[:])
	if errors.Is(err, models.ErrIdempotencyMismatch) {
		return 0, nil, Errorf(http.StatusUnprocessableEntity, api.CodeIdempotencyKeyReused,
			"this Idempotency-Key was already used with a different request; use a new key for a new request")
	}
	if err != nil {
		return 0, nil, err
	}
	if prev != nil {
		c.Response().Header().Set("Idempotent-Replayed", "true")
		return prev.Status, prev.Body, nil
	}
	status, out, err := do(ctx)
	if err != nil {
		return 0, nil, err
	}
	return status, out, models.SaveIdempotentResponse(ctx, tx, u.ID, key, status, out)
}
