package clientagent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zalando/go-keyring"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// designExample is config.yaml from spec/client-agent-design.md §2.1, verbatim.
const designExample = `# config.yaml
gpuscheduler:
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

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestDesignExampleParses(t *testing.T) {
	t.Parallel()
	cfg, warns, err := Parse("config.yaml", []byte(designExample), Secrets{Getenv: env(map[string]string{
		"GPUSCHEDULER_API_KEY": "gsu_abc", "OPENAI_API_KEY": "sk-xyz"})})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Fatalf("warnings for keys from the environment: %v", warns)
	}
	home, _ := os.UserHomeDir()
	if cfg.GPUScheduler.APIEndpoint != "https://api.gpuscheduler.io" || cfg.GPUScheduler.APIKey != "gsu_abc" ||
		cfg.LLM.Provider != "openai" || cfg.LLM.APIKey != "sk-xyz" || cfg.LLM.Model != "gpt-3.5-turbo" {
		t.Fatalf("config %+v", cfg)
	}
	want := api.HoldRequest{Monitor: "training_log_monitor", UserRegion: "us-east-1", JobType: "TRAINING",
		Requirements: &api.HoldRequirements{MinMemoryGB: 16}}
	if diff := cmp.Diff(want, cfg.allocationFor(&cfg.Monitors[0]).holdRequest("training_log_monitor")); diff != "" {
		t.Fatalf("allocation request (-want +got):\n%s", diff)
	}
	got := []string{cfg.Monitors[0].Type, cfg.Monitors[0].Path, cfg.Monitors[1].Type, cfg.Monitors[1].Path, cfg.Monitors[1].Pattern}
	if diff := cmp.Diff([]string{"log_tailer", "/var/log/ml_jobs.log", "file_watcher", filepath.Join(home, "notebooks"), "*.ipynb"}, got); diff != "" {
		t.Fatalf("monitors (-want +got):\n%s", diff)
	}
	if !strings.HasSuffix(cfg.Monitors[1].Prompt, "Content: {content}") {
		t.Fatalf("prompt %q", cfg.Monitors[1].Prompt)
	}
}

func TestConfigErrorsNameFileLineAndField(t *testing.T) {
	t.Parallel()
	base := func(monitors string) string {
		return "gpuscheduler:\n  api_endpoint: http://localhost:8080\n  api_key: env(K)\nllm:\n  provider: openai\n  base_url: http://localhost:11434/v1\n  model: llama3\nmonitors:\n" + monitors
	}
	tests := map[string]struct {
		yaml string
		want string
	}{
		"missing env var": {strings.Replace(base("  - {name: a, type: exec, command: x, prompt: '{line}'}\n"), "env(K)", "env(NOPE)", 1),
			"c.yaml:3: gpuscheduler.api_key: environment variable NOPE is not set"},
		"unknown monitor type": {base("  - name: a\n    type: log_tail\n    path: /x\n    prompt: '{line}'\n"),
			`c.yaml:10: monitors[0].type: must be log_tailer, file_watcher, process_monitor or exec, not "log_tail"`},
		"no path": {base("  - name: a\n    type: log_tailer\n    prompt: '{line}'\n"),
			"c.yaml:9: monitors[0].path: required: the log file to follow"},
		"duplicate name": {base("  - {name: a, type: exec, command: x, prompt: '{line}'}\n  - {name: a, type: exec, command: y, prompt: '{line}'}\n"),
			`c.yaml:10: monitors[1].name: "a" is used by another monitor`},
		"bad prefilter": {base("  - name: a\n    type: exec\n    command: x\n    prompt: '{line}'\n    prefilter: '(['\n"),
			"c.yaml:13: monitors[0].prefilter: not a regular expression"},
		"bad glob": {base("  - name: a\n    type: file_watcher\n    path: /tmp\n    pattern: '[x'\n    prompt: '{content}'\n"),
			"c.yaml:12: monitors[0].pattern: not a glob"},
		"no prompt": {base("  - name: a\n    type: exec\n    command: x\n"),
			"c.yaml:9: monitors[0].prompt: required with an LLM"},
		"unknown field": {base("  - name: a\n    type: exec\n    command: x\n    promt: '{line}'\n"),
			"c.yaml: yaml: unmarshal errors:\n  line 12: field promt not found"},
		"bad cooldown": {base("  - name: a\n    type: exec\n    command: x\n    prompt: '{line}'\n    cooldown: soon\n"),
			`line 13: "soon" is not a duration`},
		"bad provider": {strings.Replace(base("  - {name: a, type: exec, command: x}\n"), "provider: openai", "provider: gemini", 1),
			`c.yaml:5: llm.provider: must be openai`},
		"bad endpoint": {strings.Replace(base("  - {name: a, type: exec, command: x, prompt: '{line}'}\n"), "http://localhost:8080", "localhost", 1),
			`c.yaml:2: gpuscheduler.api_endpoint: must be the control plane's http(s) URL`},
		"negative gpus": {base("  - name: a\n    type: exec\n    command: x\n    prompt: '{line}'\n    allocation:\n      gpu_count: -1\n"),
			"c.yaml:14: monitors[0].allocation.gpu_count: must be 1–64"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := Parse("c.yaml", []byte(tc.yaml), Secrets{Getenv: env(map[string]string{"K": "gsu_x"})})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestConfigOverridesAndWarnings(t *testing.T) {
	t.Parallel()
	y := `gpuscheduler: {api_endpoint: "http://cp:8080", api_key: "gsu_plain"}
llm: {provider: none}
allocation_defaults: {job_type: TRAINING, gpu_count: 1, requirements: {min_memory_gb: 40}}
monitors:
  - name: big
    type: exec
    command: squeue --me
    cooldown: 5m
    allocation: {gpu_count: 8, ttl: 10m}
`
	cfg, warns, err := Parse("c.yaml", []byte(y), Secrets{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "c.yaml:1: gpuscheduler.api_key: a plain key") {
		t.Fatalf("warnings %v", warns)
	}
	want := api.HoldRequest{Monitor: "big", JobType: "TRAINING", GPUCount: 8, TTLS: 600,
		Requirements: &api.HoldRequirements{MinMemoryGB: 40}}
	if diff := cmp.Diff(want, cfg.allocationFor(&cfg.Monitors[0]).holdRequest("big")); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if got := cfg.Monitors[0].Cooldown.D(DefaultCooldown); got != 5*time.Minute {
		t.Fatalf("cooldown %v", got)
	}
}

// keyring(NAME) reads the OS keyring (go-keyring's in-memory mock here);
// login stores what it is given under the names the config refers to.
func TestKeyringLoginAndConfig(t *testing.T) {
	keyring.MockInit()
	var out strings.Builder
	answers := []string{"gsu_from_login\n", "sk-from-login\n"}
	ask := func(string) (string, error) {
		a := answers[0]
		answers = answers[1:]
		return a, nil
	}
	if err := Login(&out, ask, "openai"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `keyring(gpuscheduler)`) || !strings.Contains(out.String(), `keyring(openai)`) {
		t.Fatalf("login told %q", out.String())
	}
	y := strings.NewReplacer(`"env(GPUSCHEDULER_API_KEY)"`, `"keyring(gpuscheduler)"`, `"env(OPENAI_API_KEY)"`, `"keyring(openai)"`).Replace(designExample)
	cfg, warns, err := Parse("c.yaml", []byte(y), Secrets{Keyring: KeyringGet})
	if err != nil || len(warns) != 0 {
		t.Fatalf("parse: %v %v", err, warns)
	}
	if cfg.GPUScheduler.APIKey != "gsu_from_login" || cfg.LLM.APIKey != "sk-from-login" {
		t.Fatalf("keys %q %q", cfg.GPUScheduler.APIKey, cfg.LLM.APIKey)
	}
	y = strings.Replace(y, "keyring(openai)", "keyring(anthropic)", 1)
	_, _, err = Parse("c.yaml", []byte(y), Secrets{Keyring: KeyringGet})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Line != 8 || ce.Field != "llm.api_key" || !strings.Contains(ce.Msg, "gpusched-agent login") {
		t.Fatalf("missing keyring secret: %v", err)
	}
}
