package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/clientagent"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// designConfig is the client agent design's example config.yaml; the test
// changes only its paths and endpoints.
const designConfig = `gpuscheduler:
  api_endpoint: "https://api.gpuscheduler.io"
  api_key: "env(GPUSCHEDULER_API_KEY)" # Support for env var substitution

llm:
  provider: "openai" # or "anthropic", etc.
  api_key: "env(OPENAI_API_KEY)"
  model: "gpt-3.5-turbo"

# Default allocation parameters when a GPU is requested
allocation_defaults:
  user_region: "us-east-1"
  job_type: "TRAINING"
  requirements:
    min_memory_gb: 16

monitors:
  - name: "training_log_monitor"
    type: "log_tailer"
    path: "/var/log/ml_jobs.log"
    prompt: "Does this log line indicate a GPU-intensive training job is starting? Respond with only YES or NO. Line: {line}"
  - name: "jupyter_save_monitor"
    type: "file_watcher"
    path: "~/notebooks/"
    pattern: "*.ipynb"
    prompt: "Does this Jupyter notebook appear to be a heavy ML training job? Respond with only YES or NO. Content: {content}"
`

// yesLLM is a local OpenAI-compatible server (POST /v1/chat/completions)
// that answers YES to everything and counts the calls.
func yesLLM(t *testing.T, calls *atomic.Int32) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-3.5-turbo",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": "YES"}}}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// The acceptance path: the agent with the design's config follows a log;
// a training line creates a hold; a second line within the cooldown does
// not; the user's next lease starts at once on the held GPUs.
func TestAgentCreatesHoldOwnerLeaseTakesIt(t *testing.T) {
	t.Parallel()
	s := holdServer(t, 2)
	ana, _ := s.UserToken(t, models.RoleMember)
	var calls atomic.Int32
	dir := t.TempDir()
	logPath := filepath.Join(dir, "ml_jobs.log")
	y := strings.NewReplacer(`"https://api.gpuscheduler.io"`, `"`+s.URL+`"`,
		`model: "gpt-3.5-turbo"`, `model: "gpt-3.5-turbo"`+"\n  base_url: \""+yesLLM(t, &calls)+`"`,
		`"/var/log/ml_jobs.log"`, `"`+logPath+`"`, `"~/notebooks/"`, `"`+filepath.Join(dir, "notebooks")+`"`).Replace(designConfig)
	y += "state_file: " + filepath.Join(dir, "cooldowns.json") + "\n"
	getenv := func(k string) string {
		return map[string]string{"GPUSCHEDULER_API_KEY": ana, "OPENAI_API_KEY": "sk-local"}[k]
	}
	cfg, _, err := clientagent.Parse("config.yaml", []byte(y), clientagent.Secrets{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	// The agent reads the clock once for each line its log monitor emits
	// (is the monitor cooling?): the reads show which lines it has seen.
	var reads atomic.Int64
	now := func() time.Time { reads.Add(1); return time.Now() }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- clientagent.Run(ctx, clientagent.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: now, Version: "test"})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	appendLine := func(line string) {
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.WriteString(line + "\n")
		f.Close()
	}
	// logSeen appends line until the log monitor has seen it: a tailer
	// starts at the end of the file it first finds, so a line written
	// before it first looked is not its to see, and is written again.
	logSeen := func(line string) {
		t.Helper()
		before, wrote, again := reads.Load(), time.Now(), 300*time.Millisecond // the tailer looks every 250 ms
		appendLine(line)
		waitFor(t, "the agent to read "+line, func() bool {
			if reads.Load() > before {
				return true
			}
			if time.Since(wrote) > again {
				before, wrote, again = reads.Load(), time.Now(), 2*again
				appendLine(line)
			}
			return false
		})
	}
	logSeen("2026-01-05 10:00:01 starting torchrun --nproc_per_node 1 train.py (epoch 0)")
	waitFor(t, "the agent's hold", func() bool { return len(holds(t, s, ana)) == 1 })
	var hold struct{ id int64 }
	for id, h := range holds(t, s, ana) {
		if h.State != "active" || h.Monitor != "training_log_monitor" || h.GPUCount != 1 || h.JobType != "TRAINING" {
			t.Fatalf("hold %+v", h)
		}
		hold.id = id
	}

	logSeen("2026-01-05 10:00:05 starting training run 2, epoch 0")
	if n, c := len(holds(t, s, ana)), calls.Load(); n != 1 || c != 1 {
		t.Fatalf("within the cooldown: %d holds, %d LLM calls; want 1 and 1", n, c)
	}

	start := time.Now()
	st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", ana, `{"gpu_count":1,"timeout_s":20}`)
	if st != http.StatusOK || time.Since(start) > 5*time.Second {
		t.Fatalf("ana's lease: %d after %v: %s", st, time.Since(start), b)
	}
	if h := holds(t, s, ana)[hold.id]; h.State != "consumed" {
		t.Fatalf("hold after the lease: %+v", h)
	}
	if c := calls.Load(); c != 1 {
		t.Fatalf("%d LLM calls after the lease, want 1: the line within the cooldown was analyzed", c)
	}
}
