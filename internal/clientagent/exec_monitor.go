package clientagent

import (
	"bufio"
	"context"
	"log/slog"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// ExecMonitor runs a user's command through the shell and emits each line
// it prints: the way to add a monitor without recompiling (poll Slurm's
// queue, a team's own script). A command that exits is run again after the
// interval; the command is stopped when the agent stops.
type ExecMonitor struct {
	name    string
	command string
	every   time.Duration
	logger  *slog.Logger
}

// Name is the monitor's name.
func (m *ExecMonitor) Name() string { return m.name }

// Run runs the command until ctx ends.
func (m *ExecMonitor) Run(ctx context.Context, emit func(Event)) error {
	for {
		m.once(ctx, emit)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(m.every):
		}
	}
}

func (m *ExecMonitor) once(ctx context.Context, emit func(Event)) {
	cmd := shell(ctx, m.command)
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		m.logger.Warn("exec monitor", "err", err)
		return
	}
	if err := cmd.Start(); err != nil {
		m.logger.Warn("exec monitor could not start its command", "err", err)
		return
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		if line := strings.TrimRight(sc.Text(), "\r"); strings.TrimSpace(line) != "" {
			emit(Event{Monitor: m.name, Line: line, Source: "exec"})
		}
	}
	if err := cmd.Wait(); err != nil && ctx.Err() == nil {
		m.logger.Warn("exec monitor's command failed", "err", err)
	}
}

// shell runs a command line through the system's shell.
func shell(ctx context.Context, command string) *exec.Cmd {
	if runtime.GOOS == "windows" {
		return exec.CommandContext(ctx, "cmd", "/C", command)
	}
	return exec.CommandContext(ctx, "/bin/sh", "-c", command)
}
