package clientagent

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ProcessMonitor scans the machine's processes every interval and emits the
// command line of each new process that matches a pattern. Processes that
// run when it starts are the baseline, not events.
type ProcessMonitor struct {
	name    string
	pattern *regexp.Regexp
	every   time.Duration
	logger  *slog.Logger
	// step, when set, replaces the scan ticker (tests step the monitor
	// with it); it returns false to end Run.
	step func(context.Context) bool
}

// Name is the monitor's name.
func (p *ProcessMonitor) Name() string { return p.name }

// Run scans until ctx ends.
func (p *ProcessMonitor) Run(ctx context.Context, emit func(Event)) error {
	seen, err := processes(ctx)
	if err != nil {
		return fmt.Errorf("clientagent: %s: list processes: %w", p.name, err)
	}
	wait, stop := pollWait(p.step, p.every)
	defer stop()
	for {
		if !wait(ctx) {
			return nil
		}
		now, err := processes(ctx)
		if err != nil {
			p.logger.Warn("listing processes", "err", err)
			continue
		}
		for pid, cmd := range now {
			if prev, ok := seen[pid]; ok && prev == cmd {
				continue
			}
			if p.pattern.MatchString(cmd) {
				emit(Event{Monitor: p.name, Line: cmd, Source: "pid " + strconv.Itoa(pid)})
			}
		}
		seen = now
	}
}

// processes maps PIDs to command lines: /proc where there is one (Linux),
// else ps (macOS, BSD).
func processes(ctx context.Context) (map[int]string, error) {
	if entries, err := os.ReadDir("/proc"); err == nil {
		out := map[int]string{}
		self := os.Getpid()
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err != nil || len(raw) == 0 {
				continue // gone, or a kernel thread
			}
			out[pid] = strings.TrimSpace(string(bytes.ReplaceAll(raw, []byte{0}, []byte{' '})))
		}
		return out, nil
	}
	raw, err := exec.CommandContext(ctx, "ps", "-axo", "pid=,command=").Output()
	if err != nil {
		return nil, fmt.Errorf("ps: %w", err)
	}
	out := map[int]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		pidS, cmd, ok := strings.Cut(strings.TrimSpace(line), " ")
		if pid, err := strconv.Atoi(pidS); ok && err == nil {
			out[pid] = strings.TrimSpace(cmd)
		}
	}
	return out, nil
}
