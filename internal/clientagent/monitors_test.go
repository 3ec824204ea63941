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

// collector runs a monitor and gathers what it emits. Events from probe
// files (see watching) are kept apart from the others.
type collector struct {
	mu     sync.Mutex
	events []Event
	probes map[string]int // events by probe file
	stop   func()
	done   chan error
}

func start(t *testing.T, m Monitor) *collector {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &collector{probes: map[string]int{}, stop: cancel, done: make(chan error, 1)}
	go func() {
		c.done <- m.Run(ctx, func(ev Event) {
			c.mu.Lock()
			if strings.HasPrefix(filepath.Base(ev.Source), probePrefix) {
				c.probes[ev.Source]++
			} else {
				c.events = append(c.events, ev)
			}
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

// wantLines checks the lines emitted so far.
func (c *collector) wantLines(t *testing.T, want ...string) {
	t.Helper()
	if d := cmp.Diff(want, c.lines()); d != "" {
		t.Fatalf("lines (-want +got):\n%s", d)
	}
}

// probePrefix starts the names of the files watching writes.
const probePrefix = "probe-"

// watching returns once the file watcher c runs sees files written in dir:
// it writes the probe file dir/probe-name (with content) until an event for
// it comes. A watch is added a moment after the watcher starts or the folder
// appears, so what is written before is not its to see.
func (c *collector) watching(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, probePrefix+name)
	c.mu.Lock()
	before := c.probes[path]
	c.mu.Unlock()
	var wrote time.Time
	again := 100 * time.Millisecond // then the debounce's event would have come
	eventually(t, "an event for "+path, func() bool {
		c.mu.Lock()
		seen := c.probes[path] > before
		c.mu.Unlock()
		if !seen && time.Since(wrote) > again {
			wrote, again = time.Now(), 2*again
			writeFile(t, dir, probePrefix+name, content)
		}
		return seen
	})
}

// stepper drives a polling monitor one look at a time: set its step to the
// stepper's.
type stepper struct {
	idle chan struct{} // the monitor finished a look and waits
	next chan struct{} // it may look again
}

func newStepper() *stepper { return &stepper{idle: make(chan struct{}), next: make(chan struct{})} }

func (s *stepper) step(ctx context.Context) bool {
	select {
	case s.idle <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	select {
	case <-s.next:
		return true
	case <-ctx.Done():
		return false
	}
}

// settled waits until the monitor has finished its look and waits for the
// next: its first, after it started, or the one look lets it take.
func (s *stepper) settled(t *testing.T) {
	t.Helper()
	select {
	case <-s.idle:
	case <-time.After(10 * time.Second):
		t.Fatal("the monitor did not finish a look within 10 s")
	}
}

// look lets the monitor look once more and returns when it has.
func (s *stepper) look(t *testing.T) {
	t.Helper()
	s.next <- struct{}{}
	s.settled(t)
}

func TestLogTailerFollowsRotationAndTruncation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "train.log")
	appendFile(t, path, "old line before the agent started")
	m, _ := NewMonitor(MonitorConfig{Name: "log", Type: TypeLogTailer, Path: path}, quietLogger())
	s := newStepper()
	m.(*LogTailer).step = s.step
	c := start(t, m)
	s.settled(t)

	appendFile(t, path, "one", "two")
	s.look(t)
	c.wantLines(t, "one", "two")

	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString("half a ")
	s.look(t)
	c.wantLines(t, "one", "two")
	_, _ = f.WriteString("line\r\n")
	f.Close()
	s.look(t)
	c.wantLines(t, "one", "two", "half a line")

	// Rotation: the old file is renamed and gets a last line; a new one starts.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path+".1", "last of the old file")
	s.look(t)
	appendFile(t, path, "first of the new file")
	s.look(t)
	c.wantLines(t, "one", "two", "half a line", "last of the old file", "first of the new file")

	// Truncation: the file shrinks and is written again from its start.
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	s.look(t)
	appendFile(t, path, "after truncation")
	s.look(t)
	c.wantLines(t, "one", "two", "half a line", "last of the old file", "first of the new file", "after truncation")
}

func TestLogTailerWaitsForTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "later.log")
	m, _ := NewMonitor(MonitorConfig{Name: "log", Type: TypeLogTailer, Path: path}, quietLogger())
	s := newStepper()
	m.(*LogTailer).step = s.step
	c := start(t, m)
	s.settled(t)
	appendFile(t, path, "written by a job that started after the agent")
	s.look(t)
	c.wantLines(t, "written by a job that started after the agent")
}

func TestFileWatcherGlobDebounceNotebooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m, _ := NewMonitor(MonitorConfig{Name: "nb", Type: TypeFileWatcher, Path: dir, Pattern: "*.ipynb",
		Debounce: Duration(150 * time.Millisecond)}, quietLogger())
	c := start(t, m)
	empty := `{"cells":[],"nbformat":4}`
	c.watching(t, dir, "a.ipynb", empty)

	nb := `{"cells":[{"cell_type":"markdown","source":["# Notes\n"]},
	  {"cell_type":"code","source":["import torch\n","model.cuda()\n"],"outputs":[{"text":"huge output"}]},
	  {"cell_type":"code","source":"trainer.fit(model)"}],"nbformat":4}`
	sub := filepath.Join(dir, "project", "exp")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	c.watching(t, sub, "b.ipynb", empty) // the new folders are watched
	// A burst of saves is one event.
	for range 5 {
		writeFile(t, sub, "run.ipynb", nb)
	}
	writeFile(t, dir, "notes.txt", "import torch") // not the pattern
	eventually(t, "one notebook event", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.events) > 0
	})
	// A file saved after the burst has its event after any the burst and
	// the other file could still cause.
	c.watching(t, dir, "c.ipynb", empty)
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
	c.watching(t, dir, "a.py", "")
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
	m, err := NewMonitor(MonitorConfig{Name: "proc", Type: TypeProcessMonitor, Pattern: `sleep 3[01]\.4159`}, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	s := newStepper()
	m.(*ProcessMonitor).step = s.step
	c := start(t, m)
	s.settled(t) // the baseline is taken
	cmd := exec.Command("sleep", "30.4159")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s.look(t)
	c.wantLines(t, "sleep 30.4159") // the one running before the start is the baseline
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
	up := make(chan struct{}, 1)
	go func() {
		_ = long.Run(ctx, func(Event) {
			select {
			case up <- struct{}{}:
			default:
			}
		})
		close(done)
	}()
	select {
	case <-up: // the command runs
	case <-time.After(10 * time.Second):
		t.Fatal("the exec monitor's command printed nothing within 10 s")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("exec monitor did not stop its command")
	}
}
