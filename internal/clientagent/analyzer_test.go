package clientagent

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func analyzerFor(t *testing.T, provider, baseURL string, mutate func(*Config)) *Analyzer {
	t.Helper()
	retries := 2
	cfg := &Config{LLM: LLMConfig{Provider: provider, Model: "m", BaseURL: baseURL, MaxRetries: &retries, Timeout: Duration(2 * time.Second)},
		Monitors: []MonitorConfig{{Name: "log", Type: TypeLogTailer, Prompt: "Training? YES or NO. Line: {line}"}}}
	if mutate != nil {
		mutate(cfg)
	}
	llm, err := NewLLM(cfg.LLM, &http.Client{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewAnalyzer(cfg, llm, quietLogger(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	a.backoff = time.Millisecond
	return a
}

func TestAnalyzerProviders(t *testing.T) {
	t.Parallel()
	for _, p := range []struct{ provider, path string }{{ProviderOpenAI, "/v1"}, {ProviderAnthropic, ""}} {
		t.Run(p.provider, func(t *testing.T) {
			t.Parallel()
			llm := newFakeLLM(t, func(prompt string) string {
				if strings.Contains(prompt, "torchrun") {
					return " Yes."
				}
				if strings.Contains(prompt, "epoch") {
					return "Perhaps"
				}
				return "NO"
			})
			a := analyzerFor(t, p.provider, llm.URL+p.path, nil)
			tests := map[string]bool{
				"starting torchrun --nproc 8 train.py": true,
				"epoch 1 of dataloader warmup":         false, // unclear answer: no
				"cuda check finished":                  false,
				"lint passed":                          false, // the prefilter: no call
			}
			for line, want := range tests {
				got, err := a.Decide(context.Background(), Event{Monitor: "log", Line: line})
				if err != nil || got != want {
					t.Fatalf("%q: %v %v, want %v", line, got, err, want)
				}
			}
			calls := llm.calls()
			sort.Strings(calls)
			want := []string{"Training? YES or NO. Line: cuda check finished", "Training? YES or NO. Line: epoch 1 of dataloader warmup",
				"Training? YES or NO. Line: starting torchrun --nproc 8 train.py"} // not "lint passed": the prefilter
			if diff := cmp.Diff(want, calls); diff != "" {
				t.Fatalf("prompts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnalyzerRetriesTimeoutsAndRateLimit(t *testing.T) {
	t.Parallel()
	ev := Event{Monitor: "log", Line: "python train.py"}
	t.Run("retries a 500 then succeeds", func(t *testing.T) {
		t.Parallel()
		llm := newFakeLLM(t, func(string) string { return "yes" })
		llm.status = func(call int) int { return map[bool]int{true: http.StatusInternalServerError}[call <= 2] }
		a := analyzerFor(t, ProviderOpenAI, llm.URL+"/v1", nil)
		if yes, err := a.Decide(context.Background(), ev); !yes || err != nil || len(llm.calls()) != 3 {
			t.Fatalf("got %v %v after %d calls", yes, err, len(llm.calls()))
		}
	})
	t.Run("gives up after the retries", func(t *testing.T) {
		t.Parallel()
		llm := newFakeLLM(t, func(string) string { return "yes" })
		llm.status = func(int) int { return http.StatusServiceUnavailable }
		a := analyzerFor(t, ProviderAnthropic, llm.URL, nil)
		if yes, err := a.Decide(context.Background(), ev); yes || err == nil || len(llm.calls()) != 3 {
			t.Fatalf("got %v %v after %d calls", yes, err, len(llm.calls()))
		}
	})
	t.Run("no retry on a bad key", func(t *testing.T) {
		t.Parallel()
		llm := newFakeLLM(t, func(string) string { return "yes" })
		llm.status = func(int) int { return http.StatusUnauthorized }
		a := analyzerFor(t, ProviderOpenAI, llm.URL+"/v1", nil)
		if _, err := a.Decide(context.Background(), ev); err == nil || len(llm.calls()) != 1 {
			t.Fatalf("err %v after %d calls", err, len(llm.calls()))
		}
	})
	t.Run("times out a slow model", func(t *testing.T) {
		t.Parallel()
		llm := newFakeLLM(t, func(string) string { return "yes" })
		llm.delay = 500 * time.Millisecond
		a := analyzerFor(t, ProviderOpenAI, llm.URL+"/v1", func(c *Config) { zero := 0; c.LLM.MaxRetries = &zero })
		a.timeout = 50 * time.Millisecond
		start := time.Now()
		if _, err := a.Decide(context.Background(), ev); err == nil || time.Since(start) > 400*time.Millisecond {
			t.Fatalf("err %v after %v", err, time.Since(start))
		}
	})
	t.Run("rate limit", func(t *testing.T) {
		t.Parallel()
		llm := newFakeLLM(t, func(string) string { return "no" })
		a := analyzerFor(t, ProviderOpenAI, llm.URL+"/v1", func(c *Config) { c.LLM.MaxCallsPerMinute = 2 })
		for i := range 3 {
			_, err := a.Decide(context.Background(), ev)
			if want := i == 2; errors.Is(err, ErrRateLimited) != want {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		if n := len(llm.calls()); n != 2 {
			t.Fatalf("%d calls reached the LLM, want 2", n)
		}
	})
	t.Run("provider none: the prefilter decides", func(t *testing.T) {
		t.Parallel()
		a := analyzerFor(t, ProviderNone, "", nil)
		yes, _ := a.Decide(context.Background(), ev)
		no, _ := a.Decide(context.Background(), Event{Monitor: "log", Line: "GET /healthz 200"})
		if !yes || no {
			t.Fatalf("none: %v %v", yes, no)
		}
	})
}

func TestFillPrompt(t *testing.T) {
	t.Parallel()
	got := FillPrompt("L={line} C={content} P={path}", Event{Line: "a", Content: strings.Repeat("x", maxPromptContent+10), Source: "/f"})
	if want := "L=a C=" + strings.Repeat("x", maxPromptContent) + " P=/f"; got != want {
		t.Fatalf("prompt of %d bytes, want %d", len(got), len(want))
	}
}
