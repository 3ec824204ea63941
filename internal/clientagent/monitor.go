package clientagent

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"time"
)

// Event is something a monitor saw. It stays on this machine: only the
// analyzer reads it, to fill the prompt sent to the user's LLM.
type Event struct {
	Monitor string
	Line    string // a log line, a process's command line, a command's output line
	Content string // a file's content (file_watcher)
	Source  string // the file or command it came from
}

// Monitor watches one thing and emits events until ctx ends; Run returns
// once everything it started has stopped.
type Monitor interface {
	Name() string
	Run(ctx context.Context, emit func(Event)) error
}

// NewMonitor builds the monitor a config entry describes.
func NewMonitor(m MonitorConfig, logger *slog.Logger) (Monitor, error) {
	log := logger.With("monitor", m.Name)
	switch m.Type {
	case TypeLogTailer:
		return &LogTailer{name: m.Name, path: m.Path, poll: m.Interval.D(250 * time.Millisecond), logger: log}, nil
	case TypeFileWatcher:
		return &FileWatcher{name: m.Name, dir: m.Path, pattern: m.Pattern, recursive: m.Recursive == nil || *m.Recursive,
			debounce: m.Debounce.D(2 * time.Second), maxBytes: maxOr(m.MaxBytes, 64<<10), logger: log}, nil
	case TypeProcessMonitor:
		re, err := regexp.Compile(m.Pattern)
		if err != nil {
			return nil, fmt.Errorf("clientagent: monitor %s: %w", m.Name, err)
		}
		return &ProcessMonitor{name: m.Name, pattern: re, every: m.Interval.D(2 * time.Second), logger: log}, nil
	case TypeExec:
		return &ExecMonitor{name: m.Name, command: m.Command, every: m.Interval.D(time.Minute), logger: log}, nil
	}
	return nil, fmt.Errorf("clientagent: monitor %s: unknown type %q", m.Name, m.Type)
}

// pollWait returns how a polling monitor waits for its next look: step
// when a test set one, else a ticker of every. wait reports false once ctx
// has ended; stop releases the ticker.
func pollWait(step func(context.Context) bool, every time.Duration) (wait func(context.Context) bool, stop func()) {
	if step != nil {
		return step, func() {}
	}
	tick := time.NewTicker(every)
	return func(ctx context.Context) bool {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
			return true
		}
	}, tick.Stop
}

func maxOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Default prefilters: the cheap test an event passes before the LLM is
// asked, per monitor type.
var defaultPrefilters = map[string]string{
	TypeLogTailer:      `(?i)train|epoch|fine-?tun|cuda|gpu|torch|accelerate|deepspeed|checkpoint|dataloader|sbatch|srun`,
	TypeFileWatcher:    `(?i)import torch|from torch|tensorflow|import jax|from jax|transformers|accelerate|\.cuda\(|\.to\(.cuda|\.fit\(|Trainer\(|deepspeed|lightning`,
	TypeProcessMonitor: `.`,
	TypeExec:           `.`,
}

// prefilterFor compiles the monitor's prefilter (or its type's default).
func prefilterFor(m MonitorConfig) (*regexp.Regexp, error) {
	expr := defaultPrefilters[m.Type]
	if m.Prefilter != nil {
		expr = *m.Prefilter
	}
	if expr == "" {
		expr = "."
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("clientagent: monitor %s prefilter: %w", m.Name, err)
	}
	return re, nil
}
