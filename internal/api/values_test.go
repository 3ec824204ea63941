package api_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// flexibleBody holds every flexible value, one of them nested, as a
// request would.
type flexibleBody struct {
	Priority api.Priority `json:"priority"`
	Duration api.Seconds  `json:"estimated_duration"`
	Job      api.JobRef   `json:"job_id"`
	Inner    struct {
		Grace api.Seconds `json:"stop_grace"`
	} `json:"inner"`
}

// Each flexible value reads every spelling it allows into one typed value,
// and refuses the rest with the field's path and a sentence.
func TestFlexibleValuesDecode(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body           string
		want           flexibleBody
		field, problem string
	}{
		"absent":                {body: `{}`},
		"nulls":                 {body: `{"priority":null,"estimated_duration":null,"job_id":null}`},
		"priority number":       {body: `{"priority":3}`, want: flexibleBody{Priority: api.PriorityHigh}},
		"priority name":         {body: `{"priority":"Critical"}`, want: flexibleBody{Priority: api.PriorityCritical}},
		"priority out of range": {body: `{"priority":7}`, field: "priority", problem: "must be 1–4 or low, normal, high, critical, got 7"},
		"priority zero":         {body: `{"priority":0}`, field: "priority", problem: "must be 1–4 or low, normal, high, critical, got 0"},
		"priority unknown":      {body: `{"priority":"urgent"}`, field: "priority", problem: `must be 1–4 or low, normal, high, critical, got "urgent"`},
		"priority digits":       {body: `{"priority":"3"}`, field: "priority", problem: `must be 1–4 or low, normal, high, critical, got "3"`},
		"priority fraction":     {body: `{"priority":2.5}`, field: "priority", problem: "must be 1–4 or low, normal, high, critical"},
		"priority bool":         {body: `{"priority":true}`, field: "priority", problem: "must be 1–4 or low, normal, high, critical"},
		"seconds number":        {body: `{"estimated_duration":5400}`, want: flexibleBody{Duration: 5400}},
		"seconds fraction":      {body: `{"estimated_duration":90.9}`, want: flexibleBody{Duration: 90}},
		"seconds text":          {body: `{"estimated_duration":"5400"}`, want: flexibleBody{Duration: 5400}},
		"seconds duration":      {body: `{"estimated_duration":"2h30m"}`, want: flexibleBody{Duration: 9000}},
		"seconds nested": {body: `{"inner":{"stop_grace":"90s"}}`, want: flexibleBody{Inner: struct {
			Grace api.Seconds `json:"stop_grace"`
		}{90}}},
		"seconds negative":     {body: `{"estimated_duration":-5}`, field: "estimated_duration", problem: "must be between 1 second and 30 days, got -5"},
		"seconds too long":     {body: `{"inner":{"stop_grace":"721h"}}`, field: "inner.stop_grace", problem: `must be between 1 second and 30 days, got "721h"`},
		"seconds not a number": {body: `{"estimated_duration":"NaN"}`, field: "estimated_duration", problem: `must be between 1 second and 30 days, got "NaN"`},
		"seconds unreadable":   {body: `{"estimated_duration":"soon"}`, field: "estimated_duration", problem: `"soon" is not a duration like "90m" or "2h30m"`},
		"seconds object":       {body: `{"estimated_duration":{}}`, field: "estimated_duration", problem: `must be seconds or a duration like "90m" or "2h30m"`},
		"job id":               {body: `{"job_id":42}`, want: flexibleBody{Job: api.JobRef{ID: 42}}},
		"job id as text":       {body: `{"job_id":"42"}`, want: flexibleBody{Job: api.JobRef{ID: 42}}},
		"job's own name":       {body: `{"job_id":"train-7"}`, want: flexibleBody{Job: api.JobRef{Ref: "train-7"}}},
		"job zero as text":     {body: `{"job_id":"0"}`, want: flexibleBody{Job: api.JobRef{Ref: "0"}}},
		"job id zero":          {body: `{"job_id":0}`, field: "job_id", problem: "must be a positive id, not 0"},
		"job id empty":         {body: `{"job_id":""}`, field: "job_id", problem: "required: the id gpu-allocate answered, or your own job_id"},
		"job id fraction":      {body: `{"job_id":1.5}`, field: "job_id", problem: "required: the id gpu-allocate answered, or your own job_id"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got flexibleBody
			err := json.Unmarshal([]byte(tt.body), &got)
			field, problem, ok := api.InvalidValue(err)
			if tt.problem == "" {
				if err != nil {
					t.Fatalf("decode %s: %v", tt.body, err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("decode %s (-want +got):\n%s", tt.body, diff)
				}
				return
			}
			if !ok || field != tt.field || problem != tt.problem {
				t.Errorf("decode %s: InvalidValue(%v) = %q, %q, %v; want %q, %q", tt.body, err, field, problem, ok, tt.field, tt.problem)
			}
		})
	}
}

// A request a client builds is sent in one spelling: numbers for priority
// and durations, the id as a number, nothing for what it leaves unset.
func TestFlexibleValuesEncode(t *testing.T) {
	t.Parallel()
	n := 2
	tests := map[string]struct {
		req  any
		want string
	}{
		"empty submission": {api.SubmitRequest{GPUCount: &n}, `{"gpu_count":2}`},
		"typed values": {api.SubmitRequest{GPUCount: &n, Priority: api.PriorityHigh, EstimatedDuration: 7200, Checkpoint: true, StopGrace: 90},
			`{"gpu_count":2,"priority":3,"estimated_duration":7200,"checkpoint":true,"stop_grace":90}`},
		"renew by id":    {api.RenewRequest{JobID: api.JobRef{ID: 9}}, `{"job_id":9}`},
		"release by ref": {api.ReleaseRequest{JobID: api.JobRef{Ref: "train-7"}}, `{"job_id":"train-7"}`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// People type priorities and durations in flags and forms: names, numbers
// and Go durations, the same rules as the wire.
func TestParse(t *testing.T) {
	t.Parallel()
	prio := map[string]struct {
		in   string
		want api.Priority
		ok   bool
	}{
		"name":         {"high", api.PriorityHigh, true},
		"any case":     {"LOW", api.PriorityLow, true},
		"number":       {"4", api.PriorityCritical, true},
		"out of range": {"5", 0, false},
		"unknown":      {"urgent", 0, false},
	}
	for name, tt := range prio {
		t.Run("priority "+name, func(t *testing.T) {
			t.Parallel()
			got, err := api.ParsePriority(tt.in)
			if got != tt.want || (err == nil) != tt.ok {
				t.Errorf("ParsePriority(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
	secs := map[string]struct {
		in   string
		want api.Seconds
		ok   bool
	}{
		"duration": {"90m", 5400, true},
		"seconds":  {"120", 120, true},
		"zero":     {"0s", 0, false},
		"too long": {"721h", 0, false},
		"unknown":  {"soon", 0, false},
	}
	for name, tt := range secs {
		t.Run("seconds "+name, func(t *testing.T) {
			t.Parallel()
			got, err := api.ParseSeconds(tt.in)
			if got != tt.want || (err == nil) != tt.ok {
				t.Errorf("ParseSeconds(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
	if got := api.PriorityHigh.String(); got != "high" {
		t.Errorf("PriorityHigh.String() = %q", got)
	}
}
