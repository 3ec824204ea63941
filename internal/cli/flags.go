package cli

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// deprecatedAlias adds old to cmd, a hidden flag that sets what flag name
// sets; using it prints a one-line notice on standard error that names the
// new flag. Old scripts keep working while help shows one name per concept.
func deprecatedAlias(cmd *cobra.Command, old, name string) {
	fs := cmd.Flags()
	f := fs.Lookup(name)
	fs.Var(aliasValue{Value: f.Value, old: old, name: name, w: cmd.ErrOrStderr}, old, f.Usage)
	_ = fs.MarkHidden(old)
}

// aliasValue is a deprecated flag's value: the new flag's, with a notice.
type aliasValue struct {
	pflag.Value
	old, name string
	w         func() io.Writer
}

// Set prints the notice and sets the new flag's value.
func (a aliasValue) Set(s string) error {
	fmt.Fprintf(a.w(), "gpusched: --%s is deprecated; use --%s\n", a.old, a.name)
	return a.Value.Set(s)
}

// The API's field names as the commands' flags name them.
var (
	jobFlags = map[string]string{"gpu_count": "--gpus", "memory_gb": "--mem", "gpu_model": "--gpu-type", "gpu_share": "--gpu-share", "gpu_memory": "--gpu-memory", "priority": "--priority",
		"estimated_duration": "--time", "estimated_duration_seconds": "--time", "name": "--name", "allow_multi_node": "--multi-node",
		"executor": "--executor", "workdir": "--workdir", "env": "--env", "job_type": "--job-type", "stop_grace": "--stop-grace",
		"stop_grace_seconds": "--stop-grace", "command": "the command"}
	bookingFlags = map[string]string{"gpu_count": "--gpus", "gpu_model": "--gpu-type", "gpu_ids": "--gpu-ids", "starts_at": "--from",
		"ends_at": "--until", "note": "--note", "gpu_share": "--gpu-share"}
	seriesFlags = map[string]string{"gpu_count": "--gpus", "gpu_model": "--gpu-type", "gpu_ids": "--gpu-ids", "first_day": "--first",
		"last_day": "--last", "days": "--days", "start_time": "--start", "end_time": "--end", "time_zone": "--tz", "note": "--note"}
)

// fieldName matches an API field name: lower case words joined by "_".
var fieldName = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b|\b[a-z]+\b`)

// withFlagNames returns err with the API's field names in its sentence
// replaced by the flags that set them ("gpu_count: must be at most 8" →
// "--gpus: must be at most 8"), so the message speaks the command's words.
func withFlagNames(err error, flags map[string]string) error {
	var e *api.Error
	if !errors.As(err, &e) {
		return err
	}
	out := *e
	out.Message = fieldName.ReplaceAllStringFunc(e.Message, func(w string) string {
		if f, ok := flags[w]; ok && (strings.Contains(w, "_") || strings.HasPrefix(e.Message, w+":")) {
			return f
		}
		return w
	})
	return &out
}

// prefixOnce wraps err as "what id: …" unless its sentence already starts
// with what it is about ("booking 3 not found", "booking 3: it is already
// ended"), so that no message says the same thing twice.
func prefixOnce(what string, id int64, err error) error {
	prefix := fmt.Sprintf("%s %d", what, id)
	says := func(s string) bool {
		rest, ok := strings.CutPrefix(s, prefix)
		return ok && (rest == "" || rest[0] < '0' || rest[0] > '9')
	}
	var e *api.Error
	if errors.As(err, &e) && says(e.Message) || says(err.Error()) {
		return err
	}
	return fmt.Errorf("%s: %w", prefix, err)
}
