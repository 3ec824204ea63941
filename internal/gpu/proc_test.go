package gpu

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestProcStartTime(t *testing.T) {
	t.Parallel()
	tail := " S 1 1 1 0 -1 4194560 100 0 0 0 3 1 0 0 20 0 1 0 %s 10000 200"
	tests := map[string]struct {
		stat string
		want uint64
		err  bool
	}{
		"plain":                    {stat: "42 (sleep)" + strings.Replace(tail, "%s", "123456", 1), want: 123456},
		"command with ) and space": {stat: "42 (a) b (c))" + strings.Replace(tail, "%s", "987", 1), want: 987},
		"truncated":                {stat: "42 (sleep) S 1 1", err: true},
		"not a number":             {stat: "42 (sleep)" + strings.Replace(tail, "%s", "x", 1), err: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "42"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "42", "stat"), []byte(tc.stat+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ProcFS{Root: root}.StartTime(42)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("StartTime = %d, %v; want %d (error: %t)", got, err, tc.want, tc.err)
			}
		})
	}
	if _, err := (ProcFS{Root: t.TempDir()}).StartTime(7); !errors.Is(err, ErrNoProcess) {
		t.Fatalf("a missing process: %v, want ErrNoProcess", err)
	}
}

// On the host, a process started after this one started no earlier.
func TestHostProcStartTime(t *testing.T) {
	t.Parallel()
	self, err := HostProc.StartTime(os.Getpid())
	if err != nil || self == 0 {
		t.Fatalf("own start time %d, %v", self, err)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	child, err := HostProc.StartTime(cmd.Process.Pid)
	if err != nil || child < self {
		t.Fatalf("child's start time %d (%v), before ours %d", child, err, self)
	}
}
