//go:build unix

package pgembed

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestParsePidFile(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      string
		want    pidFile
		wantErr bool
	}{
		"ready with tcp": {
			in: "4242\n/data/pg\n1700000000\n5433\n/tmp/gpusched-pg-ab\n127.0.0.1\n  5433001    32768\nready   \n",
			want: pidFile{pid: 4242, dataDir: "/data/pg", started: 1700000000, port: 5433,
				socketDir: "/tmp/gpusched-pg-ab", listenAddr: "127.0.0.1", status: "ready"},
		},
		"starting, no status yet": {
			in:   "4242\n/data/pg\n1700000000\n5433\n/tmp/s\n\n",
			want: pidFile{pid: 4242, dataDir: "/data/pg", started: 1700000000, port: 5433, socketDir: "/tmp/s"},
		},
		"empty":    {in: "", wantErr: true},
		"bad pid":  {in: "x\n/d\n1\n5432\n", wantErr: true},
		"bad port": {in: "1\n/d\n1\n99999\n", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := parsePidFile([]byte(tc.in))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestPidFileURL(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		pf       pidFile
		database string
		want     string
	}{
		"tcp":           {pidFile{port: 5433, listenAddr: "127.0.0.1"}, "gpusched", "postgres://postgres@127.0.0.1:5433/gpusched?sslmode=disable"},
		"any address":   {pidFile{port: 5433, listenAddr: "*"}, "gpusched", "postgres://postgres@127.0.0.1:5433/gpusched?sslmode=disable"},
		"ipv6":          {pidFile{port: 5433, listenAddr: "::1"}, "db", "postgres://postgres@[::1]:5433/db?sslmode=disable"},
		"default db":    {pidFile{port: 5433, listenAddr: "127.0.0.1"}, "", "postgres://postgres@127.0.0.1:5433/postgres?sslmode=disable"},
		"socket only":   {pidFile{port: 5433, socketDir: "/tmp/gpusched-pg-ab"}, "gpusched", "postgres://postgres@/gpusched?host=%2Ftmp%2Fgpusched-pg-ab&port=5433&sslmode=disable"},
		"odd db escape": {pidFile{port: 1, listenAddr: "127.0.0.1"}, "a b/c", "postgres://postgres@127.0.0.1:1/a%20b%2Fc?sslmode=disable"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := tc.pf.url(tc.database); got != tc.want {
				t.Errorf("url = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRunning checks Running against hand-written postmaster.pid files,
// with a sleep named postgres standing in for the postmaster.
func TestRunning(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	listening := l.Addr().(*net.TCPAddr).Port
	closedPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	me := fakePostgres(t)
	pidFileFor := func(pid, port int, status string) string {
		return fmt.Sprintf("%d\n/x\n1700000000\n%d\n/tmp\n127.0.0.1\n1 2\n%s\n", pid, port, status)
	}
	tests := map[string]struct {
		content string // "" for no postmaster.pid
		wantOK  bool
	}{
		"no postmaster.pid":         {},
		"garbage":                   {content: "not a pid file"},
		"dead pid":                  {content: pidFileFor(deadPid(t), listening, "ready")},
		"pid of another program":    {content: pidFileFor(os.Getpid(), listening, "ready")},
		"still starting":            {content: pidFileFor(me, listening, "starting")},
		"pid alive, port not open":  {content: pidFileFor(me, closedPort, "ready")},
		"ready and accepting (ok)":  {content: pidFileFor(me, listening, "ready"), wantOK: true},
		"stopping is not available": {content: pidFileFor(me, listening, "stopping")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.content != "" {
				if err := os.WriteFile(filepath.Join(dir, "postmaster.pid"), []byte(tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			url, ok := Running(dir, "gpusched")
			if ok != tc.wantOK {
				t.Fatalf("Running = %q, %v; want ok %v", url, ok, tc.wantOK)
			}
			want := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/gpusched?sslmode=disable", listening)
			if ok && url != want {
				t.Errorf("url = %q, want %q", url, want)
			}
		})
	}
}

// fakePostgres runs sleep under the name postgres until the test ends and
// returns its pid.
func fakePostgres(t *testing.T) int {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(t.TempDir(), "postgres")
	if err := os.WriteFile(fake, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fake, "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}
