package clientagent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// runAgent runs the agent with cfg until the returned stop is called.
func runAgent(t *testing.T, cfg *Config, dryRun bool, now func() time.Time) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Options{Config: cfg, DryRun: dryRun, Logger: quietLogger(), Now: now}) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// agentClock is the agent's clock in a test: it counts its reads, and can
// run ahead of the real time.
type agentClock struct {
	reads atomic.Int64
	ahead atomic.Int64 // a time.Duration
}

func (c *agentClock) now() time.Time {
	c.reads.Add(1)
	return time.Now().Add(time.Duration(c.ahead.Load()))
}

// logSeen appends line to the log at path until the agent has seen it. The
// agent reads its clock for every line its log monitor emits (is the
// monitor cooling?), and a tailer starts at the end of the file it first
// finds: a line written before it first looked is not its to see, and is
// written again.
func logSeen(t *testing.T, clock *agentClock, path, line string) {
	t.Helper()
	before := clock.reads.Load()
	var wrote time.Time
	again := 50 * time.Millisecond
	eventually(t, "the agent to read "+line, func() bool {
		seen := clock.reads.Load() > before
		if !seen && time.Since(wrote) > again {
			before, wrote, again = clock.reads.Load(), time.Now(), 2*again
			appendFile(t, path, line)
		}
		return seen
	})
}

func logConfig(t *testing.T, cpURL, llmURL, dir string) *Config {
	t.Helper()
	y := "gpuscheduler: {api_endpoint: '" + cpURL + "', api_key: env(K)}\n" +
		"llm: {provider: openai, model: local, base_url: '" + llmURL + "/v1'}\n" +
		"state_file: " + filepath.Join(dir, "state", "cooldowns.json") + "\n" +
		"monitors:\n  - {name: train, type: log_tailer, path: " + filepath.Join(dir, "ml.log") + ", interval: 10ms, prompt: 'GPU? {line}'}\n"
	cfg, _, err := Parse("c.yaml", []byte(y), Secrets{Getenv: env(map[string]string{"K": "gsu_test"})})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The cooldown holds across restarts; once it is over, a line asks again.
func TestCooldownSurvivesRestart(t *testing.T) {
	t.Parallel()
	llm := newFakeLLM(t, func(string) string { return "YES" })
	cp := newFakeControlPlane(t)
	dir := t.TempDir()
	cfg := logConfig(t, cp.URL, llm.URL, dir)
	log := filepath.Join(dir, "ml.log")
	var clock agentClock

	stop := runAgent(t, cfg, false, clock.now)
	logSeen(t, &clock, log, "starting training run 1")
	eventually(t, "the first hold", func() bool { return len(cp.requests()) == 1 })
	logSeen(t, &clock, log, "starting training run 2")
	stop()

	stop = runAgent(t, cfg, false, clock.now)
	logSeen(t, &clock, log, "starting training run 3")
	if n, calls := len(cp.requests()), len(llm.calls()); n != 1 || calls != 1 {
		t.Fatalf("within the cooldown: %d holds and %d LLM calls, want 1 and 1", n, calls)
	}

	clock.ahead.Store(int64(DefaultCooldown + time.Minute))
	logSeen(t, &clock, log, "starting training run 4")
	eventually(t, "a hold after the cooldown", func() bool { return len(cp.requests()) == 2 })
	stop()
	// The lines within the cooldown never reached the LLM (the agent
	// handles lines in order: had it analyzed them, it would have before
	// the fourth).
	if calls := llm.calls(); len(calls) != 2 || !strings.HasSuffix(calls[0], "run 1") || !strings.HasSuffix(calls[1], "run 4") {
		t.Fatalf("LLM prompts %q, want those of runs 1 and 4", calls)
	}
}

// --dry-run asks the LLM but sends nothing to the control plane and keeps
// no state.
func TestDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	llm := newFakeLLM(t, func(string) string { return "YES" })
	cp := newFakeControlPlane(t)
	dir := t.TempDir()
	cfg := logConfig(t, cp.URL, llm.URL, dir)
	var clock agentClock
	stop := runAgent(t, cfg, true, clock.now)
	log := filepath.Join(dir, "ml.log")
	logSeen(t, &clock, log, "starting training")
	eventually(t, "the LLM call", func() bool { return len(llm.calls()) == 1 })
	logSeen(t, &clock, log, "starting training again")
	stop()
	if n := len(cp.requests()); n != 0 {
		t.Fatalf("dry run sent %d requests", n)
	}
	if n := len(llm.calls()); n != 1 {
		t.Fatalf("dry run: %d LLM calls, want 1 (then the in-memory cooldown)", n)
	}
	if _, err := os.Stat(cfg.StateFile); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote %s: %v", cfg.StateFile, err)
	}
}

func TestCooldownsFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "c.json")
	c, err := LoadCooldowns(file)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	if err := c.Start("a", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	again, err := LoadCooldowns(file)
	if err != nil {
		t.Fatal(err)
	}
	if on, _ := again.Active("a", now); !on {
		t.Fatal("cooldown lost on reload")
	}
	if on, _ := again.Active("a", now.Add(time.Minute)); on {
		t.Fatal("cooldown still on at its end")
	}
	if on, _ := again.Active("b", now); on {
		t.Fatal("another monitor is cooling")
	}
	if err := os.WriteFile(file, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCooldowns(file); err == nil {
		t.Fatal("a damaged file should be an error")
	}
}
