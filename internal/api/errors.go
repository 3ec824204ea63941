package api

import (
	"errors"
	"fmt"
)

// Error is the body of every refused request, flat so that shell clients
// can read .error: {"error": a sentence a person can act on, "code": a
// stable machine code (see the Code constants)}. As a Go error, what the
// client returns for a refused request, it also carries the answer's
// status.
type Error struct {
	Status  int    `json:"-"`
	Message string `json:"error"`
	Code    string `json:"code"`
}

// Error returns the server's sentence with the status and code.
func (e *Error) Error() string {
	return fmt.Sprintf("%s (HTTP %d, %s)", e.Message, e.Status, e.Code)
}

// IsStatus reports whether err is an API error with the given status.
func IsStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}
