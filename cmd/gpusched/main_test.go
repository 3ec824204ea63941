package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The client starts fast because it links none of the server's packages, nor
// net/http (its requests go through internal/lighthttp): Go runs every
// linked package's init at each start.
func TestClientLinksNoServerPackages(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{
		"github.com/uptrace/bun", "github.com/riverqueue/", "riverqueue.com/", "github.com/jackc/pgx",
		"github.com/labstack/echo", "github.com/prometheus/", "github.com/a-h/templ", "github.com/zitadel/",
		"github.com/NVIDIA/go-nvml", "github.com/go-playground/validator",
		"github.com/gpuscheduler/gpuscheduler/models", "github.com/gpuscheduler/gpuscheduler/web",
		"github.com/gpuscheduler/gpuscheduler/jobs", "github.com/gpuscheduler/gpuscheduler/handlers",
		"github.com/gpuscheduler/gpuscheduler/views", "github.com/gpuscheduler/gpuscheduler/internal/gpu",
		"github.com/gpuscheduler/gpuscheduler/internal/ray", "net/http",
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "github.com/gpuscheduler/gpuscheduler/internal/cli\n") {
		t.Fatalf("go list -deps gave no dependency list: %q", out)
	}
	for _, d := range deps {
		for _, f := range forbidden {
			if d == strings.TrimSuffix(f, "/") || strings.HasPrefix(d, f) {
				t.Errorf("cmd/gpusched links %s (a server package, or net/http)", d)
			}
		}
	}
}

// build compiles the package pkg to dir/name.
func build(t *testing.T, dir, name, pkg string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", path, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return path
}

// run runs bin with args and PATH set to path; it returns stdout, stderr
// and the exit status.
func run(t *testing.T, path, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "PATH="+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// The server commands run gpusched-server: the one beside the client, else
// the one on PATH; without one the error names what to install.
func TestServerCommandsRunTheServerBinary(t *testing.T) {
	t.Parallel()
	clientDir, serverDir, empty := t.TempDir(), t.TempDir(), t.TempDir()
	client := build(t, clientDir, "gpusched", ".")

	stdout, stderr, code := run(t, empty, client, "sim", "--help")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "gpusched sim: this command runs the server binary gpusched-server, which is not beside "+client+" or on PATH: install gpusched-server") {
		t.Errorf("without gpusched-server: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The client commands need no server binary.
	if stdout, _, code := run(t, empty, client, "version", "--short"); code != 0 || stdout != "dev\n" {
		t.Errorf("gpusched version --short without gpusched-server: exit %d, %q", code, stdout)
	}

	build(t, serverDir, "gpusched-server", "../gpusched-server")
	// On PATH: the flags only the server's sim command has reach it.
	stdout, stderr, code = run(t, serverDir, client, "sim", "--help")
	if code != 0 || !strings.Contains(stdout, "--trace") {
		t.Errorf("gpusched sim --help with gpusched-server on PATH: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Beside the client (PATH empty), with the server's exit status.
	if err := os.Rename(filepath.Join(serverDir, "gpusched-server"), filepath.Join(clientDir, "gpusched-server")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = run(t, empty, client, "sim", "--no-such-flag")
	if code != 1 || !strings.Contains(stderr, "unknown flag: --no-such-flag") {
		t.Errorf("gpusched sim --no-such-flag with gpusched-server beside: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, _, code = run(t, empty, client, "user", "--help")
	if code != 0 || !strings.Contains(stdout, "gpusched user [command]") || !strings.Contains(stdout, "create") {
		t.Errorf("gpusched user --help with gpusched-server beside: exit %d, stdout %q", code, stdout)
	}
}
