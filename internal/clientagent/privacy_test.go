package clientagent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recordingClient is an HTTP client that remembers every address it dials.
type recordingClient struct {
	mu    sync.Mutex
	dials map[string]bool
}

func (r *recordingClient) client() *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy: nil, // a proxy would hide where requests go
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			r.mu.Lock()
			r.dials[addr] = true
			r.mu.Unlock()
			return d.DialContext(ctx, network, addr)
		},
	}}
}

func marker(kind string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "MARKER-" + kind + "-" + hex.EncodeToString(b)
}

// DESIGN.md invariant 6: log lines, file contents, process command lines
// and command output reach the user's LLM and nothing else; the control
// plane gets only the allocation request, and no other host is contacted.
func TestPrivacyNothingButTheAllocationLeaves(t *testing.T) {
	t.Parallel()
	llm := newFakeLLM(t, func(p string) string {
		if strings.Contains(p, "MARKER-") {
			return "YES"
		}
		return "NO"
	})
	cp := newFakeControlPlane(t)
	dir := t.TempDir()
	logPath, nbDir := filepath.Join(dir, "ml_jobs.log"), filepath.Join(dir, "notebooks")
	if err := os.MkdirAll(nbDir, 0o755); err != nil {
		t.Fatal(err)
	}
	mLog, mFile, mExec, mProc := marker("LOG"), marker("FILE"), marker("EXEC"), marker("PROC")
	cfgYAML := `gpuscheduler:
  api_endpoint: "` + cp.URL + `"
  api_key: "env(GPUSCHEDULER_API_KEY)"
llm:
  provider: "openai"
  api_key: "env(OPENAI_API_KEY)"
  model: "gpt-3.5-turbo"
  base_url: "` + llm.URL + `/v1"
allocation_defaults:
  user_region: "us-east-1"
  job_type: "TRAINING"
  requirements:
    min_memory_gb: 16
state_file: "` + filepath.Join(dir, "cooldowns.json") + `"
monitors:
  - name: "training_log_monitor"
    type: "log_tailer"
    path: "` + logPath + `"
    prompt: "Does this log line indicate a GPU-intensive training job is starting? Respond with only YES or NO. Line: {line}"
  - name: "jupyter_save_monitor"
    type: "file_watcher"
    path: "` + nbDir + `"
    pattern: "*.ipynb"
    debounce: 100ms
    prompt: "Does this Jupyter notebook appear to be a heavy ML training job? Respond with only YES or NO. Content: {content}"
  - name: "slurm_queue"
    type: "exec"
    command: "echo 'sbatch train.sh ` + mExec + `'"
    interval: 1h
    prompt: "Is this a GPU job? {line}"
  - name: "proc_watch"
    type: "process_monitor"
    pattern: "` + mProc + `"
    interval: 50ms
    prompt: "Is this a GPU job? {line}"
`
	cfgPath := writeFile(t, dir, "config.yaml", cfgYAML)
	cfg, _, err := Load(cfgPath, Secrets{Getenv: env(map[string]string{"GPUSCHEDULER_API_KEY": "gsu_test", "OPENAI_API_KEY": "sk-test"})})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingClient{dials: map[string]bool{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Config: cfg, Logger: quietLogger(), HTTP: rec.client(), Version: "test"})
	}()

	// Each monitor is shown its thing until it asked for a hold: a monitor
	// misses what happens before it looks (the tailer starts at the end of
	// the log, the watcher adds its watch, the process monitor takes its
	// baseline), and once it held, its cooldown keeps it quiet.
	held := func(monitor string) bool {
		for _, r := range cp.requests() {
			if r.Monitor == monitor {
				return true
			}
		}
		return false
	}
	var shown time.Time
	again := 50 * time.Millisecond
	eventually(t, "one hold per monitor", func() bool {
		if time.Since(shown) > again {
			shown, again = time.Now(), 2*again
			if !held("training_log_monitor") {
				appendFile(t, logPath, "epoch 0: torch training starts "+mLog)
			}
			if !held("jupyter_save_monitor") {
				writeFile(t, nbDir, "train.ipynb", `{"cells":[{"cell_type":"code","source":["import torch  # `+mFile+`\n"]}]}`)
			}
			if !held("proc_watch") {
				proc := exec.Command("sh", "-c", "sleep 30; : "+mProc)
				if err := proc.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = proc.Process.Kill(); _ = proc.Wait() })
			}
		}
		return len(cp.requests()) == 4
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// The markers did flow: to the LLM.
	llmSaw := strings.Join(llm.calls(), "\n")
	for _, m := range []string{mLog, mFile, mExec, mProc} {
		if !strings.Contains(llmSaw, m) {
			t.Fatalf("the LLM never saw %s: the test proves nothing", m)
		}
	}
	// None reached the control plane, in the URL, headers or body.
	cp.mu.Lock()
	all := strings.Join(cp.raw, "\n")
	cp.mu.Unlock()
	for _, m := range []string{mLog, mFile, mExec, mProc, "MARKER-", "torch", "sbatch", "epoch"} {
		if strings.Contains(all, m) {
			t.Fatalf("the control plane received %q:\n%s", m, all)
		}
	}
	// Each request is exactly the allocation and the monitor's name.
	var monitors []string
	for _, raw := range cp.raw {
		if !strings.HasPrefix(raw, "POST /api/gpuscheduler/v1/allocate{") {
			t.Fatalf("unexpected request %s", raw)
		}
		body := raw[strings.LastIndex(raw, "}{")+1:]
		var fields map[string]any
		if err := json.Unmarshal([]byte(body), &fields); err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
		monitors = append(monitors, fields["monitor"].(string))
		delete(fields, "monitor")
		want := map[string]any{"user_region": "us-east-1", "job_type": "TRAINING", "requirements": map[string]any{"min_memory_gb": 16.0}}
		if diff := cmp.Diff(want, fields); diff != "" {
			t.Fatalf("allocation body (-want +got):\n%s", diff)
		}
	}
	sort.Strings(monitors)
	if diff := cmp.Diff([]string{"jupyter_save_monitor", "proc_watch", "slurm_queue", "training_log_monitor"}, monitors); diff != "" {
		t.Fatalf("monitors (-want +got):\n%s", diff)
	}
	// And no other host was contacted.
	want := map[string]bool{strings.TrimPrefix(llm.URL, "http://"): true, strings.TrimPrefix(cp.URL, "http://"): true}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for addr := range rec.dials {
		if !want[addr] {
			t.Fatalf("the agent dialed %s; only %v are allowed", addr, want)
		}
	}
}
