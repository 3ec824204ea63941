// Package clientagent is gpusched-agent: a small daemon a user runs on their
// own machine. Monitors watch their logs, files, processes and commands; an
// analyzer asks the user's own LLM whether GPU work is about to start; an
// action taker asks the control plane for a pre-warm hold, and, if
// configured (notebook_offer), offers a notebook on a GPU. Only the
// allocation request (the configured defaults and the monitor's name) ever
// reaches the control plane, and, with notebook_offer.start, the notebook's
// session request, built from the config alone: log lines, file contents,
// prompts and answers go nowhere but the configured LLM endpoint (DESIGN.md
// invariant 6).
//
// It imports no server package, so that users can audit what they run.
package clientagent

import (
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Config is config.yaml (spec/client-agent-design.md §2.1) with what a real
// user also needs: llm.base_url, per-monitor cooldown, allocation overrides
// and prefilters.
type Config struct {
	// Path is the file the config was read from, for messages.
	Path string `yaml:"-"`

	GPUScheduler struct {
		APIEndpoint string `yaml:"api_endpoint"`
		APIKey      string `yaml:"api_key"`
	} `yaml:"gpuscheduler"`

	LLM LLMConfig `yaml:"llm"`

	AllocationDefaults Allocation `yaml:"allocation_defaults"`

	Monitors []MonitorConfig `yaml:"monitors"`

	// NotebookOffer offers a Jupyter notebook on a GPU when a monitor says
	// GPU work is about to start; off unless enabled.
	NotebookOffer NotebookOffer `yaml:"notebook_offer"`

	// StateFile keeps the cooldowns across restarts (default: cooldowns.json
	// next to the default config).
	StateFile string `yaml:"state_file"`
}

// LLMConfig is the user's own model.
type LLMConfig struct {
	Provider string `yaml:"provider"` // openai (and OpenAI-compatible), anthropic, none
	APIKey   string `yaml:"api_key"`
	Model    string `yaml:"model"`
	// BaseURL points at another OpenAI-compatible server (Ollama, vLLM,
	// llama.cpp: http://localhost:11434/v1) or Anthropic endpoint.
	BaseURL string `yaml:"base_url"`
	// Timeout bounds one call (default 30s).
	Timeout Duration `yaml:"timeout"`
	// MaxRetries is how often a failed call is retried, with backoff (default 2).
	MaxRetries *int `yaml:"max_retries"`
	// MaxCallsPerMinute caps LLM calls (default 30); events beyond it are dropped.
	MaxCallsPerMinute int `yaml:"max_calls_per_minute"`
}

// Allocation is what a hold asks for; the fields follow the design's
// allocation_defaults.
type Allocation struct {
	UserRegion   string               `yaml:"user_region"`
	JobType      string               `yaml:"job_type"`
	GPUCount     int                  `yaml:"gpu_count"`
	GPUModel     string               `yaml:"gpu_model"`
	Requirements api.HoldRequirements `yaml:"requirements"`
	// TTL asks for a hold shorter than the server's (e.g. 10m).
	TTL Duration `yaml:"ttl"`
}

// MonitorConfig is one entry of monitors.
type MonitorConfig struct {
	Name    string `yaml:"name"`
	Type    string `yaml:"type"` // log_tailer, file_watcher, process_monitor, exec
	Path    string `yaml:"path"`
	Pattern string `yaml:"pattern"`
	Prompt  string `yaml:"prompt"`
	// Command is what an exec monitor runs (a string runs through the shell).
	Command string `yaml:"command"`
	// Prefilter is a regular expression an event must match before the LLM
	// is asked (default per type; "." lets everything through).
	Prefilter *string `yaml:"prefilter"`
	// Cooldown ignores the monitor after it triggered (default 30m).
	Cooldown Duration `yaml:"cooldown"`
	// Allocation overrides allocation_defaults field by field.
	Allocation *Allocation `yaml:"allocation"`
	// Interval: how often process_monitor scans, and exec re-runs a command
	// that exited (defaults 2s and 60s); log_tailer polls every 250ms.
	Interval Duration `yaml:"interval"`
	// Debounce waits for a file to stop changing (file_watcher, default 2s).
	Debounce Duration `yaml:"debounce"`
	// MaxBytes caps what file_watcher reads of a file (default 64 KiB).
	MaxBytes int `yaml:"max_bytes"`
	// Recursive watches subfolders too (file_watcher, default true).
	Recursive *bool `yaml:"recursive"`
}

// Duration is a time.Duration written as "30m" in YAML.
type Duration time.Duration

// D returns the duration, or def when unset.
func (d Duration) D(def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return time.Duration(d)
}

// Monitor types.
const (
	TypeLogTailer      = "log_tailer"
	TypeFileWatcher    = "file_watcher"
	TypeProcessMonitor = "process_monitor"
	TypeExec           = "exec"
)

// Providers.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderNone      = "none"
)

// DefaultCooldown is how long a monitor stays quiet after it triggered.
const DefaultCooldown = 30 * time.Minute

// allocationFor merges a monitor's overrides over the defaults.
func (c *Config) allocationFor(m *MonitorConfig) Allocation {
	a := c.AllocationDefaults
	o := m.Allocation
	if o == nil {
		return a
	}
	pick := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	pick(&a.UserRegion, o.UserRegion)
	pick(&a.JobType, o.JobType)
	pick(&a.GPUModel, o.GPUModel)
	pick(&a.Requirements.GPUModel, o.Requirements.GPUModel)
	if o.GPUCount != 0 {
		a.GPUCount = o.GPUCount
	}
	if o.Requirements.GPUCount != 0 {
		a.Requirements.GPUCount = o.Requirements.GPUCount
	}
	if o.Requirements.MinMemoryGB != 0 {
		a.Requirements.MinMemoryGB = o.Requirements.MinMemoryGB
	}
	if o.TTL != 0 {
		a.TTL = o.TTL
	}
	return a
}

// holdRequest is the one thing the control plane receives: the allocation
// and the monitor's name.
func (a Allocation) holdRequest(monitor string) api.HoldRequest {
	r := api.HoldRequest{Monitor: monitor, UserRegion: a.UserRegion, JobType: a.JobType,
		GPUCount: a.GPUCount, GPUModel: a.GPUModel, TTLS: int64(time.Duration(a.TTL) / time.Second)}
	if a.Requirements != (api.HoldRequirements{}) {
		req := a.Requirements
		r.Requirements = &req
	}
	return r
}
