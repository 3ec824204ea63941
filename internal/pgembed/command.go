//go:build unix

package pgembed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// tailBytes bounds how much of a failed command's output is quoted in errors.
const tailBytes = 2000

// runner runs PostgreSQL's programs from one folder, as one Unix account.
type runner struct {
	binDir string
	cred   *syscall.Credential // nil: run as the current user
}

// command builds the exec.Cmd for program (a name inside binDir, or an
// absolute path) with the server account's credentials.
//
// The environment is the caller's without the PG* variables (PGDATA,
// PGPORT, PGOPTIONS, ...), which would otherwise steer initdb, pg_ctl and
// psql away from the private server. The working directory is "/" so an
// unprivileged account never trips over a caller's unreadable cwd (/root).
func (r runner) command(ctx context.Context, program string, args ...string) *exec.Cmd {
	path := program
	if !strings.ContainsRune(program, os.PathSeparator) {
		path = r.binDir + string(os.PathSeparator) + program
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = "/"
	cmd.Env = cleanEnv(os.Environ())
	cmd.WaitDelay = 5 * time.Second
	if r.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	return cmd
}

// run runs program and returns its combined output. A failure is returned
// as "<program>: <err>: <tail of output>" so the caller sees why.
func (r runner) run(ctx context.Context, program string, args ...string) ([]byte, error) {
	cmd := r.command(ctx, program, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%w)", ctxErr, err)
		}
		if t := tail(out.Bytes()); t != "" {
			return out.Bytes(), fmt.Errorf("%s: %w: %s", program, err, t)
		}
		return out.Bytes(), fmt.Errorf("%s: %w", program, err)
	}
	return out.Bytes(), nil
}

// cleanEnv drops the libpq/PostgreSQL environment variables from env.
func cleanEnv(env []string) []string {
	kept := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, "PG") {
			continue
		}
		kept = append(kept, kv)
	}
	return kept
}

// tail returns the last tailBytes of out, trimmed, starting at a line
// boundary where possible, with newlines folded to " | ".
func tail(out []byte) string {
	s := strings.TrimSpace(string(out))
	if len(s) > tailBytes {
		s = s[len(s)-tailBytes:]
		if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			s = s[i+1:]
		}
		s = "..." + s
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " | ")), " ")
}
