package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// One flag name per concept: --gpu-type is the GPU model in submit, book
// and bookings series, --job-type the job type; the old names still work,
// hidden, each with a one-line notice on standard error.
func TestFlagNames(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		cmd    func() *cobra.Command
		args   []string
		want   map[string]string
		notice string
	}{
		"submit --gpu-type":          {newSubmitCmd, []string{"--gpu-type", "H100"}, map[string]string{"gpu-type": "H100"}, ""},
		"submit --job-type":          {newSubmitCmd, []string{"--job-type", "finetune"}, map[string]string{"job-type": "finetune"}, ""},
		"submit --model, deprecated": {newSubmitCmd, []string{"--model", "H100"}, map[string]string{"gpu-type": "H100"}, "--model is deprecated; use --gpu-type"},
		"submit --type, deprecated":  {newSubmitCmd, []string{"--type", "ft"}, map[string]string{"job-type": "ft", "gpu-type": ""}, "--type is deprecated; use --job-type"},
		"book --gpu-type":            {newBookCmd, []string{"--gpu-type", "A100"}, map[string]string{"gpu-type": "A100"}, ""},
		"book --type, deprecated":    {newBookCmd, []string{"--type", "A100"}, map[string]string{"gpu-type": "A100"}, "--type is deprecated; use --gpu-type"},
		"series --gpu-type":          {newBookingsSeriesCmd, []string{"--gpu-type", "H100"}, map[string]string{"gpu-type": "H100"}, ""},
		"series --type, deprecated":  {newBookingsSeriesCmd, []string{"--type", "H100"}, map[string]string{"gpu-type": "H100"}, "--type is deprecated; use --gpu-type"},
	}
	for name, tc := range tests {
		cmd := tc.cmd()
		var stderr bytes.Buffer
		cmd.SetErr(&stderr)
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got := map[string]string{}
		for k := range tc.want {
			got[k], _ = cmd.Flags().GetString(k)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: flags (-want +got):\n%s", name, d)
		}
		if lines := strings.Count(stderr.String(), "\n"); !strings.Contains(stderr.String(), tc.notice) || (tc.notice != "" && lines != 1) || (tc.notice == "" && lines != 0) {
			t.Errorf("%s: notice %q, want one line with %q", name, stderr.String(), tc.notice)
		}
	}
	for _, c := range []*cobra.Command{newSubmitCmd(), newBookCmd(), newBookingsSeriesCmd()} {
		for _, old := range []string{"model", "type"} {
			if f := c.Flags().Lookup(old); f != nil && !f.Hidden {
				t.Errorf("%s --%s is shown in help", c.Name(), old)
			}
		}
	}
}

// Messages speak flags, not the API's field names, and say who they are
// about once.
func TestFlagMessages(t *testing.T) {
	t.Parallel()
	apiErr := func(msg string) error { return &api.Error{Status: 422, Message: msg, Code: "invalid_field"} }
	tests := map[string]struct {
		err   error
		flags map[string]string
		want  string
	}{
		"a field first":          {apiErr("gpu_count: must be between 1 and 8, got 9"), jobFlags, "--gpus: must be between 1 and 8, got 9"},
		"a field within":         {apiErr("starts_at must be before ends_at"), bookingFlags, "--from must be before --until"},
		"the GPU model":          {apiErr("gpu_model: no GPU is like \"V100\""), bookingFlags, "--gpu-type: no GPU is like \"V100\""},
		"a plain word left":      {apiErr("the note is fine but gpu_ids: 9 is not a GPU"), bookingFlags, "the note is fine but --gpu-ids: 9 is not a GPU"},
		"a series day":           {apiErr("first_day: must be a day like 2026-11-30"), seriesFlags, "--first: must be a day like 2026-11-30"},
		"not an API error":       {errors.New("gpu_count: x"), jobFlags, "gpu_count: x"},
		"a job type, not a flag": {apiErr("job_type: too long"), jobFlags, "--job-type: too long"},
	}
	for name, tc := range tests {
		got := withFlagNames(tc.err, tc.flags)
		var e *api.Error
		msg := got.Error()
		if errors.As(got, &e) {
			msg = e.Message
		}
		if msg != tc.want {
			t.Errorf("%s: %q, want %q", name, msg, tc.want)
		}
	}
	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"says it already":      {apiErr("booking 3: it is already ended"), "booking 3: it is already ended (HTTP 422, invalid_field)"},
		"not found":            {apiErr("booking 3 not found"), "booking 3 not found (HTTP 422, invalid_field)"},
		"another booking":      {apiErr("booking 31 not found"), "booking 3: booking 31 not found (HTTP 422, invalid_field)"},
		"says nothing of whom": {apiErr("only its owner or an admin may cancel a booking"), "booking 3: only its owner or an admin may cancel a booking (HTTP 422, invalid_field)"},
	} {
		if got := prefixOnce("booking", 3, tc.err).Error(); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}
