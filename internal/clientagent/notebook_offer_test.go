package clientagent

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// lockedBuffer is the agent's standard output in a test: written by the
// agent's goroutine, read by the test's.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// offerConfig is logConfig with a notebook_offer section (none when "").
func offerConfig(t *testing.T, cpURL, llmURL, dir, offer string) *Config {
	t.Helper()
	y := "gpuscheduler: {api_endpoint: '" + cpURL + "', api_key: env(K)}\n" +
		"llm: {provider: openai, model: local, base_url: '" + llmURL + "/v1'}\n" +
		"state_file: " + filepath.Join(dir, "state", "cooldowns.json") + "\n" +
		"monitors:\n  - {name: train, type: log_tailer, path: " + filepath.Join(dir, "ml.log") + ", interval: 10ms, prompt: 'GPU? {line}'}\n" +
		"  - {name: other, type: log_tailer, path: " + filepath.Join(dir, "other.log") + ", interval: 10ms, prompt: 'GPU? {line}'}\n" + offer
	cfg, _, err := Parse("c.yaml", []byte(y), Secrets{Getenv: env(map[string]string{"K": "gsu_test"})})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// runAgentTo runs the agent with cfg, its standard output to out, until
// the returned stop is called.
func runAgentTo(t *testing.T, cfg *Config, out *lockedBuffer, now func() time.Time) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Options{Config: cfg, Logger: quietLogger(), Now: now, Out: out}) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// Without notebook_offer the agent offers no notebook: a training line
// asks for a hold, prints nothing, and the hold is all the control plane
// hears of.
func TestNotebookOfferIsOffByDefault(t *testing.T) {
	t.Parallel()
	llm := newFakeLLM(t, func(string) string { return "YES" })
	cp := newFakeControlPlane(t)
	dir := t.TempDir()
	cfg := offerConfig(t, cp.URL, llm.URL, dir, "")
	var out lockedBuffer
	var clock agentClock
	stop := runAgentTo(t, cfg, &out, clock.now)
	logSeen(t, &clock, filepath.Join(dir, "ml.log"), "starting training")
	eventually(t, "the hold", func() bool { return len(cp.requests()) == 1 })
	stop()
	if out.String() != "" {
		t.Errorf("printed %q, want nothing", out.String())
	}
	if lines, _ := Describe(cfg); strings.Contains(strings.Join(lines, "\n"), "notebook") {
		t.Errorf("check mentions a notebook offer that is off: %q", lines)
	}
}

// With notebook_offer enabled, a monitor it names prints, after the hold,
// the command that opens a notebook (its GPUs, time limit and quoted
// working directory) and the sessions page, once per cooldown; it starts
// nothing (the control plane hears of the hold only), and a monitor it
// does not name offers nothing.
func TestNotebookOfferPrintsTheCommand(t *testing.T) {
	t.Parallel()
	llm := newFakeLLM(t, func(string) string { return "YES" })
	cp := newFakeControlPlane(t)
	dir := t.TempDir()
	cfg := offerConfig(t, cp.URL, llm.URL, dir,
		"notebook_offer: {enabled: true, gpu_count: 2, time_limit: 4h, workdir: '/data/my nb', monitors: [train]}\n")
	var out lockedBuffer
	var clock agentClock
	stop := runAgentTo(t, cfg, &out, clock.now)
	logSeen(t, &clock, filepath.Join(dir, "other.log"), "starting training elsewhere")
	eventually(t, "the other monitor's hold", func() bool { return len(cp.requests()) == 1 })
	logSeen(t, &clock, filepath.Join(dir, "ml.log"), "starting training")
	eventually(t, "the offer", func() bool { return strings.Contains(out.String(), "notebook") })
	logSeen(t, &clock, filepath.Join(dir, "ml.log"), "starting training again")
	stop()
	want := "GPU work looks about to start (monitor train). Open a Jupyter notebook on 2 GPUs: " +
		"gpusched notebook -g 2 --time 4h --workdir '/data/my nb' --open, or from " + cp.URL + "/sessions\n"
	if got := out.String(); got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if len(cp.raw) != 2 {
		t.Fatalf("the control plane heard %d requests, want the 2 holds", len(cp.raw))
	}
	for _, r := range cp.raw {
		if !strings.HasPrefix(r, "POST "+api.AllocatePath) {
			t.Errorf("the control plane heard %.80s, want holds only", r)
		}
	}
	if lines, _ := Describe(cfg); !strings.Contains(strings.Join(lines, "\n"), "notebook offer: after a hold for monitors train, prints how to open a Jupyter notebook on 2 GPUs (starts nothing)") {
		t.Errorf("check does not describe the offer: %q", lines)
	}
}

// notebook_offer is validated: start only with enabled, GPUs in range,
// monitors by their names; start is described as a session request.
func TestNotebookOfferConfig(t *testing.T) {
	t.Parallel()
	base := "gpuscheduler: {api_endpoint: 'https://gpus.example.com', api_key: env(K)}\nllm: {provider: none}\n" +
		"monitors:\n  - {name: train, type: exec, command: 'tail -f x'}\n"
	for name, tc := range map[string]struct{ offer, err string }{
		"start alone":     {"notebook_offer: {start: true}\n", "notebook_offer.start: needs enabled: true"},
		"too many GPUs":   {"notebook_offer: {enabled: true, gpu_count: 65}\n", "notebook_offer.gpu_count: must be 1–64"},
		"unknown monitor": {"notebook_offer: {enabled: true, monitors: [nope]}\n", `notebook_offer.monitors: "nope" is not a monitor's name`},
		"fine":            {"notebook_offer: {enabled: true, start: true, gpu_type: H100}\n", ""},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, _, err := Parse("c.yaml", []byte(base+tc.offer), Secrets{Getenv: env(map[string]string{"K": "gsu_x"})})
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				lines, _ := Describe(cfg)
				if !strings.Contains(strings.Join(lines, "\n"), "starts a Jupyter notebook on 1 GPU (the control plane receives the session request") {
					t.Errorf("check does not say the notebook is started: %q", lines)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// The printed command quotes what a shell would split and writes the time
// limit as the CLI reads it.
func TestNotebookOfferCommand(t *testing.T) {
	t.Parallel()
	for want, o := range map[string]NotebookOffer{
		"gpusched notebook -g 1 --open": {},
		"gpusched notebook -g 3 --gpu-type 'A100 80GB' --time 1h30m --workdir '/x/it'\\''s' --open": {
			GPUCount: 3, GPUType: "A100 80GB", TimeLimit: Duration(90 * time.Minute), Workdir: "/x/it's"},
		"gpusched notebook -g 1 --time 45s --workdir /data/nb --open": {TimeLimit: Duration(45 * time.Second), Workdir: "/data/nb"},
	} {
		if got := (&NotebookOfferer{Config: &o}).command(); got != want {
			t.Errorf("%+v: %q, want %q", o, got, want)
		}
	}
}
