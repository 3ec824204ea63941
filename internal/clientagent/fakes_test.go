package clientagent

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// fakeLLM is a local server speaking the real wire formats of OpenAI's
// POST /v1/chat/completions and Anthropic's POST /v1/messages. answer
// decides the reply from the prompt; status, when it returns non-zero,
// fails the request with that HTTP status instead.
type fakeLLM struct {
	*httptest.Server
	mu      sync.Mutex
	prompts []string
	raw     []string // whole request bodies and headers, for the privacy test
	answer  func(prompt string) string
	status  func(call int) int
	delay   time.Duration
}

func newFakeLLM(t *testing.T, answer func(string) string) *fakeLLM {
	f := &fakeLLM{answer: answer}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	prompt := ""
	if len(req.Messages) > 0 {
		var s string
		if json.Unmarshal(req.Messages[0].Content, &s) != nil {
			var blocks []struct{ Text string }
			_ = json.Unmarshal(req.Messages[0].Content, &blocks)
			for _, b := range blocks {
				s += b.Text
			}
		}
		prompt = s
	}
	hdr, _ := json.Marshal(r.Header)
	f.mu.Lock()
	f.prompts = append(f.prompts, prompt)
	f.raw = append(f.raw, r.URL.String()+string(hdr)+string(body))
	call := len(f.prompts)
	f.mu.Unlock()
	if f.delay > 0 { // a slow model: it answers after delay, unless the caller gave up
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	if f.status != nil {
		if st := f.status(call); st != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(st)
			_, _ = io.WriteString(w, `{"error":{"message":"failing on purpose","type":"server_error"}}`)
			return
		}
	}
	reply := f.answer(prompt)
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/v1/chat/completions":
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": reply}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
		})
	case "/v1/messages":
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": req.Model,
			"content":     []any{map[string]any{"type": "text", "text": reply}},
			"stop_reason": "end_turn", "usage": map[string]any{"input_tokens": 10, "output_tokens": 1},
		})
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeLLM) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.prompts...)
}

// fakeControlPlane records every request and answers the allocate call as
// the real server does (202 with the hold).
type fakeControlPlane struct {
	*httptest.Server
	mu   sync.Mutex
	raw  []string
	reqs []api.HoldRequest
}

func newFakeControlPlane(t *testing.T) *fakeControlPlane {
	f := &fakeControlPlane{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		hdr, _ := json.Marshal(r.Header)
		var req api.HoldRequest
		_ = json.Unmarshal(body, &req)
		f.mu.Lock()
		f.raw = append(f.raw, r.Method+" "+r.URL.String()+string(hdr)+string(body))
		f.reqs = append(f.reqs, req)
		n := len(f.reqs)
		f.mu.Unlock()
		if r.URL.Path != api.AllocatePath || r.Header.Get("Authorization") != "Bearer gsu_test" {
			http.Error(w, `{"error":"no","code":"not_found"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_ = json.NewEncoder(w).Encode(api.Hold{ID: int64(n), State: "active", GPUCount: 1, Monitor: req.Monitor,
			CreatedAt: time.Now(), ExpiresAt: time.Now().Add(15 * time.Minute)})
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeControlPlane) requests() []api.HoldRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.HoldRequest(nil), f.reqs...)
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// appendFile appends lines to path.
func appendFile(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond until it holds, failing the test after 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); <-time.After(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
