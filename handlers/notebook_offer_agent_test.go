package handlers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/clientagent"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// syncBuffer is the agent's standard output, read while it writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// With notebook_offer start: true, the agent starts the notebook itself
// on the control plane once its hold is asked for: the user's Jupyter
// session is queued with the configured GPUs, time limit and working
// directory, and the agent prints its id and where it will open. One
// session per cooldown, whatever the lines that follow.
func TestAgentStartsOfferedNotebook(t *testing.T) {
	t.Parallel()
	s := holdServer(t, 2)
	ana, user := s.UserToken(t, models.RoleMember)
	var calls atomic.Int32
	dir := t.TempDir()
	logPath := filepath.Join(dir, "ml_jobs.log")
	y := strings.NewReplacer(`"https://api.gpuscheduler.io"`, `"`+s.URL+`"`,
		`model: "gpt-3.5-turbo"`, `model: "gpt-3.5-turbo"`+"\n  base_url: \""+yesLLM(t, &calls)+`"`,
		`"/var/log/ml_jobs.log"`, `"`+logPath+`"`, `"~/notebooks/"`, `"`+filepath.Join(dir, "notebooks")+`"`).Replace(designConfig)
	y += "state_file: " + filepath.Join(dir, "cooldowns.json") + "\n" +
		"notebook_offer: {enabled: true, start: true, gpu_count: 1, time_limit: 2h, workdir: /data/ana, monitors: [training_log_monitor]}\n"
	getenv := func(k string) string {
		return map[string]string{"GPUSCHEDULER_API_KEY": ana, "OPENAI_API_KEY": "sk-local"}[k]
	}
	cfg, _, err := clientagent.Parse("config.yaml", []byte(y), clientagent.Secrets{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	var reads atomic.Int64
	now := func() time.Time { reads.Add(1); return time.Now() }
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- clientagent.Run(ctx, clientagent.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: now,
			Out: &out, Version: "test"})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	logSeen := func(line string) {
		t.Helper()
		before, wrote, again := reads.Load(), time.Time{}, 300*time.Millisecond
		waitFor(t, "the agent to read "+line, func() bool {
			if reads.Load() > before {
				return true
			}
			if time.Since(wrote) > again {
				before, wrote, again = reads.Load(), time.Now(), 2*again
				f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = f.WriteString(line + "\n")
				f.Close()
			}
			return false
		})
	}
	sessions := func() []api.Session {
		st, b := s.Do(t, "GET", "/api/v1/sessions?all=true", ana, "")
		if st != 200 {
			t.Fatalf("sessions: %d %s", st, b)
		}
		return decode[api.SessionList](t, b).Sessions
	}
	logSeen("2026-01-05 10:00:01 starting torchrun --nproc_per_node 1 train.py (epoch 0)")
	waitFor(t, "the agent's notebook", func() bool { return len(sessions()) == 1 })
	waitFor(t, "the agent to say so", func() bool { return strings.Contains(out.String(), "queued") })
	logSeen("2026-01-05 10:00:02 starting torchrun again")

	list := sessions()
	if len(list) != 1 {
		t.Fatalf("%d sessions, want 1 (one per cooldown)", len(list))
	}
	got := list[0]
	if got.Kind != "jupyter" || got.GPUCount != 1 || got.Workdir != "/data/ana" || got.TimeLimitS == nil || *got.TimeLimitS != 7200 ||
		got.User != user.Email || got.Name != "notebook for training_log_monitor" {
		t.Errorf("session %+v", got)
	}
	want := fmt.Sprintf("GPU work looks about to start (monitor training_log_monitor): notebook session %d queued on 1 GPU; it opens at %s/s/%d/ once ready (gpusched session list)\n",
		got.ID, s.URL, got.ID)
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	if n := len(holds(t, s, ana)); n != 1 {
		t.Errorf("%d holds, want the one the line asked for", n)
	}
}
