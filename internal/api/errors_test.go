package api_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// The error body is flat, as shell clients read it (.error, .code), and
// its status stays off the wire; wrapped, it still answers IsStatus.
func TestErrorBody(t *testing.T) {
	t.Parallel()
	e := &api.Error{Status: 409, Message: "job 7 already ended (completed)", Code: api.CodeBadState}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"error":"job 7 already ended (completed)","code":"bad_state"}`, string(b)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	wrapped := fmt.Errorf("cancel: %w", e)
	if !api.IsStatus(wrapped, 409) || api.IsStatus(wrapped, 404) || api.IsStatus(fmt.Errorf("plain"), 409) {
		t.Errorf("IsStatus does not see the status through %v", wrapped)
	}
	if got, want := e.Error(), "job 7 already ended (completed) (HTTP 409, bad_state)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
