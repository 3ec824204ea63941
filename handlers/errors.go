package handlers

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// APIError is an error a client can act on: the HTTP status, a stable
// machine code and a sentence for a person. The central error handler renders
// it as {"error": Message, "code": Code}.
type APIError struct {
	Status  int
	Code    string
	Message string
	Err     error // the cause, logged but never shown
}

// Error returns the message.
func (e *APIError) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *APIError) Unwrap() error { return e.Err }

// Errorf returns an APIError with a formatted message.
func Errorf(status int, code, format string, args ...any) *APIError {
	return &APIError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Common errors.
var (
	ErrUnauthorized = &APIError{Status: http.StatusUnauthorized, Code: api.CodeUnauthorized, Message: "missing, invalid or revoked API token: send Authorization: Bearer <token>"}
	ErrForbidden    = &APIError{Status: http.StatusForbidden, Code: api.CodeForbidden, Message: "you are not allowed to do this"}
)

// fromModel maps well-known model errors to API errors; others become 500s.
func fromModel(err error, what string) error {
	switch {
	case errors.Is(err, models.ErrNotFound):
		return &APIError{Status: http.StatusNotFound, Code: api.CodeNotFound, Message: what + " not found", Err: err}
	case errors.Is(err, models.ErrConflict):
		return &APIError{Status: http.StatusConflict, Code: api.CodeConflict, Message: what + " already exists", Err: err}
	case errors.Is(err, models.ErrGPUTaken):
		return &APIError{Status: http.StatusConflict, Code: api.CodeGPUTaken, Message: "a requested GPU is already allocated", Err: err}
	case errors.Is(err, models.ErrBadTransition):
		return &APIError{Status: http.StatusConflict, Code: api.CodeBadState, Message: err.Error(), Err: err}
	}
	return err
}
