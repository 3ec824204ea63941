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
	Code    string `json:"code,omitempty"`
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

// Error codes (Error.Code): stable names a client may act on; the sentence
// beside each says what happened in words.
const (
	// The request itself.
	CodeBadRequest           = "bad_request"            // 400 of another kind
	CodeInvalidJSON          = "invalid_json"           // the body is not one JSON object
	CodeUnknownField         = "unknown_field"          // the body has a field the route does not take
	CodeInvalidField         = "invalid_field"          // a field's value is not acceptable
	CodeInvalidText          = "invalid_text"           // text that is not UTF-8 or holds NUL
	CodeInvalidPath          = "invalid_path"           // an id in the path is not one
	CodeInvalidID            = "invalid_id"             // an id is not one
	CodeInvalidQuery         = "invalid_query"          // a query parameter is not acceptable
	CodeInvalidHeader        = "invalid_header"         // a header is not acceptable
	CodeInvalidForm          = "invalid_form"           // a form cannot be read
	CodeInvalidCSV           = "invalid_csv"            // a bookings sheet cannot be read
	CodeInvalidRows          = "invalid_rows"           // some rows of a sheet are invalid: nothing was imported
	CodeInvalidPolicy        = "invalid_policy"         // a scheduling policy is not acceptable
	CodeInvalidTopic         = "invalid_topic"          // an event stream topic does not exist
	CodeInvalidWindow        = "invalid_window"         // a booking's window is empty or over
	CodeTTLOverCap           = "ttl_over_cap"           // a lease's TTL is over the policy's cap
	CodeTimeLimitOverMax     = "time_limit_over_max"    // a job's time limit is over the policy's maximum
	CodeUnsupportedMediaType = "unsupported_media_type" // the body is not of the route's content type
	CodeBodyTooLarge         = "body_too_large"         // the body is over the route's limit
	CodeIdempotencyKeyReused = "idempotency_key_reused" // an Idempotency-Key came back with another body
	CodeMethodNotAllowed     = "method_not_allowed"     // the route does not take the method

	// Who asks.
	CodeUnauthorized     = "unauthorized"       // no valid token or session
	CodeForbidden        = "forbidden"          // the caller may not do this
	CodeNodeToken        = "node_token"         // a node token on a route for people
	CodeNotNodeToken     = "not_node_token"     // a personal token on a route for node agents
	CodeUnknownUnixUser  = "unknown_unix_user"  // no user is mapped to a node's Unix user
	CodeCrossOrigin      = "cross_origin"       // a cross-site request to a page
	CodeDevLoginDisabled = "dev_login_disabled" // the dev sign-in outside serve --dev
	CodeRateLimited      = "rate_limited"       // too many requests; try again later

	// What it names.
	CodeNotFound  = "not_found"   // no such thing, or not the caller's to see
	CodeConflict  = "conflict"    // it exists already
	CodeBadState  = "bad_state"   // a job, booking or hold is not in a state that allows this
	CodeGPUTaken  = "gpu_taken"   // a GPU is held by another allocation
	CodeNotALease = "not_a_lease" // the job is not a lease
	CodeNotAStart = "not_a_start" // the node command is not a start
	// CodeWatchedLease: a node agent renews this lease while its process runs.
	CodeWatchedLease    = "watched_lease"
	CodeIdleOKForbidden = "idle_ok_forbidden" // the idle policy lets no job opt out

	// Bookings and holds.
	CodeBookingClash    = "booking_clash"     // the GPUs are booked by someone else then
	CodeBookingLimit    = "booking_limit"     // the caller has as many bookings as allowed
	CodeBookingTooLarge = "booking_too_large" // more GPUs than one booking may take
	CodeBookingTooLong  = "booking_too_long"  // longer than a booking may last
	CodeBookingTooFar   = "booking_too_far"   // starts further ahead than allowed
	CodeSeriesTooLong   = "series_too_long"   // more occurrences than a series may have
	CodeNoSuchGPUs      = "no_such_gpus"      // named GPUs that do not exist
	CodeHoldLimit       = "hold_limit"        // the caller has as many holds as allowed
	CodeQuotaExceeded   = "quota_exceeded"    // over the caller's GPU cap

	// The server.
	CodeScoringOff  = "scoring_off" // the scoring service is not configured
	CodeUnavailable = "unavailable" // the server cannot answer now; try again
	CodeInternal    = "internal"    // our fault; it was logged
	// CodeClientClosed (status 499): the client went away before the answer;
	// nobody reads it, and it is not our fault.
	CodeClientClosed = "client_closed_request"
)
