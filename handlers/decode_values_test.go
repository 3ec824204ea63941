package handlers

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A priority, duration or job id the API cannot read is a 400 that names
// the field and says what it accepts, as the checks after decoding do.
func TestDecodeRefusesFlexibleValues(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body, target, want string
	}{
		"unknown priority":      {`{"gpu_count":1,"priority":"urgent"}`, "job spec", `priority: must be 1–4 or low, normal, high, critical, got "urgent"`},
		"priority out of range": {`{"priority":9}`, "priority", "priority: must be 1–4 or low, normal, high, critical, got 9"},
		"priority of no kind":   {`{"gpu_count":1,"priority":[]}`, "allocate", "priority: must be 1–4 or low, normal, high, critical"},
		"unreadable duration":   {`{"gpu_count":1,"estimated_duration":"soon"}`, "job spec", `estimated_duration: "soon" is not a duration like "90m" or "2h30m"`},
		"negative duration":     {`{"gpu_count":1,"estimated_duration":-5}`, "allocate", "estimated_duration: must be between 1 second and 30 days, got -5"},
		"unreadable stop grace": {`{"gpu_count":1,"checkpoint":true,"stop_grace":"soon"}`, "job spec", `stop_grace: "soon" is not a duration like "90m" or "2h30m"`},
		"node lease duration":   {`{"pid":1,"gpu_count":1,"estimated_duration":true}`, "lease", `estimated_duration: must be seconds or a duration like "90m" or "2h30m"`},
		"job id zero":           {`{"job_id":0}`, "release", "job_id: must be a positive id, not 0"},
		"job id of no kind":     {`{"job_id":{}}`, "renew", "job_id: required: the id gpu-allocate answered, or your own job_id"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := decodeBody([]byte(tt.body), decodeTargets[tt.target]())
			var got *APIError
			if !errors.As(err, &got) {
				t.Fatalf("got %v, want an APIError", err)
			}
			want := APIError{Status: http.StatusBadRequest, Code: "invalid_field", Message: tt.want}
			if diff := cmp.Diff(want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Bad text in a flexible value is bad text first, as in any text field.
func TestDecodeFlexibleValuesCheckTextFirst(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body, target, field string
	}{
		"NUL in a priority": {`{"gpu_count":1,"priority":"hi\u0000gh"}`, "job spec", "priority"},
		"NUL in a duration": {`{"gpu_count":1,"estimated_duration":"2\u0000h"}`, "allocate", "estimated_duration"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := decodeBody([]byte(tt.body), decodeTargets[tt.target]())
			var got *APIError
			if !errors.As(err, &got) || got.Status != http.StatusBadRequest || got.Code != "invalid_text" || !strings.Contains(got.Message, `"`+tt.field+`"`) {
				t.Errorf("got %v, want a 400 invalid_text naming %q", err, tt.field)
			}
		})
	}
}
