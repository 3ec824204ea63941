package clientagent

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// runAgent runs the agent with cfg until the returned stop is called.
func runAgent(t *testing.T, cfg *Config, dryRun bool, now func() time.Time) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Options{Config: cfg, DryRun: dryRun, Logger: quietLogger(), Now: now}) }()
	time.Sleep(100 * time.Millisecond)
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
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

	stop := runAgent(t, cfg, false, time.Now)
	appendFile(t, log, "starting training run 1")
	eventually(t, "the first hold", func() bool { return len(cp.requests()) == 1 })
	appendFile(t, log, "starting training run 2")
	time.Sleep(200 * time.Millisecond)
	stop()

	stop = runAgent(t, cfg, false, time.Now)
	appendFile(t, log, "starting training run 3")
	time.Sleep(200 * time.Millisecond)
	stop()
	if n, calls := len(cp.requests()), len(llm.calls()); n != 1 || calls != 1 {
		t.Fatalf("within the cooldown: %d holds and %d LLM calls, want 1 and 1", n, calls)
	}

	later := func() time.Time { return time.Now().Add(DefaultCooldown + time.Minute) }
	stop = runAgent(t, cfg, false, later)
	appendFile(t, log, "starting training run 4")
	eventually(t, "a hold after the cooldown", func() bool { return len(cp.requests()) == 2 })
	stop()
}

// --dry-run asks the LLM but sends nothing to the control plane and keeps
// no state.
func TestDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	llm := newFakeLLM(t, func(string) string { return "YES" })
	cp := newFakeControlPlane(t)
	dir := t.TempDir()
	cfg := logConfig(t, cp.URL, llm.URL, dir)
	stop := runAgent(t, cfg, true, time.Now)
	appendFile(t, filepath.Join(dir, "ml.log"), "starting training", "starting training again")
	eventually(t, "the LLM call", func() bool { return len(llm.calls()) == 1 })
	time.Sleep(200 * time.Millisecond)
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
