package clientagent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// collector runs a monitor and gathers what it emits.
type collector struct {
	mu     sync.Mutex
	events []Event
	stop   func()
	done   chan error
}

func start(t *testing.T, m Monitor) *collector {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &collector{stop: cancel, done: make(chan error, 1)}
	go func() {
		c.done <- m.Run(ctx, func(ev Event) {
			c.mu.Lock()
			c.events = append(c.events, ev)
			c.mu.Unlock()
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-c.done:
			if err != nil {
				t.Errorf("monitor %s: %v", m.Name(), err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("monitor %s did not stop", m.Name())
		}
	})
	return c
}

func (c *collector) lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, e := range c.events {
		out = append(out, e.Line)
	}
	return out
}

func (c *collector) waitLines(t *testing.T, want ...string) {
	t.Helper()
	eventually(t, fmt.Sprintf("lines %q", want), func() bool { return cmp.Equal(c.lines(), want) })
}

func TestLogTailerFollowsRotationAndTruncation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "train.log")
	appendFile(t, path, "old line before the agent started")
	m, _ := NewMonitor(MonitorConfig{Name: "log", Type: TypeLogTailer, Path: path, Interval: Duration(10 * time.Millisecond)}, quietLogger())
	c := start(t, m)
	time.Sleep(50 * time.Millisecond)

	appendFile(t, path, "one", "two")
	c.waitLines(t, "one", "two")

	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString("half a ")
	time.Sleep(50 * time.Millisecond)
	_, _ = f.WriteString("line\r\n")
	f.Close()
	c.waitLines(t, "one", "two", "half a line")

	// Rotation: the old file is renamed and gets a last line; a new one starts.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path+".1", "last of the old file")
	time.Sleep(30 * time.Millisecond)
	appendFile(t, path, "first of the new file")
	c.waitLines(t, "one", "two", "half a line", "last of the old file", "first of the new file")

	// Truncation: the file shrinks and is written again from its start.
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	appendFile(t, path, "after truncation")
	c.waitLines(t, "one", "two", "half a line", "last of the old file", "first of the new file", "after truncation")
}

func TestLogTailerWaitsForTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "later.log")
	m, _ := NewMonitor(MonitorConfig{Name: "log", Type: TypeLogTailer, Path: path, Interval: Duration(10 * time.Millisecond)}, quietLogger())
	c := start(t, m)
	time.Sleep(50 * time.Millisecond)
	appendFile(t, path, "written by a job that started after the agent")
	c.waitLines(t, "written by a job that started after the agent")
}

func TestFileWatcherGlobDebounceNotebooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m, _ := NewMonitor(MonitorConfig{Name: "nb", Type: TypeFileWatcher, Path: dir, Pattern: "*.ipynb",
		Debounce: Duration(150 * time.Millisecond)}, quietLogger())
	c := start(t, m)
	time.Sleep(100 * time.Millisecond)

	nb := `{"cells":[{"cell_type":"markdown","source":["# Notes\n"]},
	  {"cell_type":"code","source":["import torch\n","model.cuda()\n"],"outputs":[{"text":"huge output"}]},
	  {"cell_type":"code","source":"trainer.fit(model)"}],"nbformat":4}`
	sub := filepath.Join(dir, "project", "exp")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the new folders are watched
	// A burst of saves is one event.
	for range 5 {
		writeFile(t, sub, "run.ipynb", nb)
		time.Sleep(20 * time.Millisecond)
	}
	writeFile(t, dir, "notes.txt", "import torch") // not the pattern
	eventually(t, "one notebook event", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.events) == 1
	})
	time.Sleep(300 * time.Millisecond)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.events) != 1 {
		t.Fatalf("%d events, want 1 after debouncing", len(c.events))
	}
	want := Event{Monitor: "nb", Content: "import torch\nmodel.cuda()\n\ntrainer.fit(model)\n\n", Source: filepath.Join(sub, "run.ipynb")}
	if diff := cmp.Diff(want, c.events[0]); diff != "" {
		t.Fatalf("event (-want +got):\n%s", diff)
	}
}

func TestFileWatcherCapsContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m, _ := NewMonitor(MonitorConfig{Name: "py", Type: TypeFileWatcher, Path: dir, Pattern: "*.py", MaxBytes: 10,
		Debounce: Duration(50 * time.Millisecond)}, quietLogger())
	c := start(t, m)
	time.Sleep(100 * time.Millisecond)
	writeFile(t, dir, "train.py", strings.Repeat("a", 100))
	eventually(t, "the capped file", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.events) == 1 && c.events[0].Content == strings.Repeat("a", 10)
	})
}

func TestProcessMonitorSeesNewProcesses(t *testing.T) {
	t.Parallel()
	old := exec.Command("sleep", "31.4159")
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = old.Process.Kill(); _ = old.Wait() })
	m, err := NewMonitor(MonitorConfig{Name: "proc", Type: TypeProcessMonitor, Pattern: `sleep 3[01]\.4159`,
		Interval: Duration(20 * time.Millisecond)}, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, m)
	time.Sleep(100 * time.Millisecond)
	cmd := exec.Command("sleep", "30.4159")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c.waitLines(t, "sleep 30.4159") // the one running before the start is the baseline
}

func TestExecMonitorLinesAndStop(t *testing.T) {
	t.Parallel()
	m, _ := NewMonitor(MonitorConfig{Name: "slurm", Type: TypeExec, Command: "echo 'job 17 PENDING gpu:4'; echo; echo done",
		Interval: Duration(time.Hour)}, quietLogger())
	c := start(t, m)
	c.waitLines(t, "job 17 PENDING gpu:4", "done")

	long, _ := NewMonitor(MonitorConfig{Name: "long", Type: TypeExec, Command: "echo up; exec sleep 60"}, quietLogger())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = long.Run(ctx, func(Event) {}); close(done) }()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("exec monitor did not stop its command")
	}
}
