package clientagent

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"gopkg.in/yaml.v3"
)

// lineOf returns the line of the node at path (keys and sequence indexes)
// in root, or of its nearest existing ancestor.
func lineOf(root *yaml.Node, path ...any) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, step := range path {
		next := (*yaml.Node)(nil)
		switch s := step.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == s {
						next = n.Content[i+1]
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && s < len(n.Content) {
				next = n.Content[s]
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return max(n.Line, 1)
}

func (p *parser) validate(c *Config, root *yaml.Node) {
	at := func(path ...any) int { return lineOf(root, path...) }
	if u, err := url.Parse(c.GPUScheduler.APIEndpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.fail(at("gpuscheduler", "api_endpoint"), "gpuscheduler.api_endpoint", "must be the control plane's http(s) URL, got %q", c.GPUScheduler.APIEndpoint)
	}
	if c.GPUScheduler.APIKey == "" {
		p.fail(at("gpuscheduler", "api_key"), "gpuscheduler.api_key", "required: a personal API token (gpusched token create), e.g. keyring(gpuscheduler) or env(GPUSCHEDULER_API_KEY)")
	}
	p.validateLLM(&c.LLM, at)
	p.validateAllocation(&c.AllocationDefaults, "allocation_defaults", at, "allocation_defaults")
	if len(c.Monitors) == 0 {
		p.fail(at("monitors"), "monitors", "at least one monitor is needed")
	}
	seen := map[string]bool{}
	for i := range c.Monitors {
		m := &c.Monitors[i]
		field := fmt.Sprintf("monitors[%d]", i)
		if m.Name == "" {
			p.fail(at("monitors", i), field+".name", "required")
		} else if seen[m.Name] {
			p.fail(at("monitors", i, "name"), field+".name", "%q is used by another monitor", m.Name)
		}
		seen[m.Name] = true
		p.validateMonitor(c, m, field, func(path ...any) int { return at(append([]any{"monitors", i}, path...)...) })
	}
	p.validateNotebookOffer(c, at)
	if c.StateFile != "" {
		c.StateFile = expandHome(c.StateFile)
	}
}

func (p *parser) validateLLM(l *LLMConfig, at func(...any) int) {
	l.Provider = strings.ToLower(strings.TrimSpace(l.Provider))
	switch l.Provider {
	case ProviderOpenAI, ProviderAnthropic:
		if l.Model == "" {
			p.fail(at("llm", "model"), "llm.model", "required for provider %s", l.Provider)
		}
		if l.APIKey == "" && l.BaseURL == "" {
			p.fail(at("llm", "api_key"), "llm.api_key", "required for %s's own API (set base_url for a local server that needs none)", l.Provider)
		}
	case ProviderNone:
	default:
		p.fail(at("llm", "provider"), "llm.provider", "must be openai (or any OpenAI-compatible server with base_url), anthropic or none, not %q", l.Provider)
	}
	if l.BaseURL != "" {
		if u, err := url.Parse(l.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.fail(at("llm", "base_url"), "llm.base_url", "must be an http(s) URL, got %q", l.BaseURL)
		}
	}
	if l.MaxRetries != nil && (*l.MaxRetries < 0 || *l.MaxRetries > 10) {
		p.fail(at("llm", "max_retries"), "llm.max_retries", "must be 0–10")
	}
	if l.MaxCallsPerMinute < 0 {
		p.fail(at("llm", "max_calls_per_minute"), "llm.max_calls_per_minute", "must not be negative")
	}
}

func (p *parser) validateAllocation(a *Allocation, field string, at func(...any) int, path ...any) {
	line := func(k ...string) int {
		full := append([]any{}, path...)
		for _, s := range k {
			full = append(full, s)
		}
		return at(full...)
	}
	if a.GPUCount < 0 || a.GPUCount > 64 {
		p.fail(line("gpu_count"), field+".gpu_count", "must be 1–64")
	}
	if a.Requirements.GPUCount < 0 || a.Requirements.GPUCount > 64 {
		p.fail(line("requirements", "gpu_count"), field+".requirements.gpu_count", "must be 1–64")
	}
	if a.Requirements.MinMemoryGB < 0 {
		p.fail(line("requirements", "min_memory_gb"), field+".requirements.min_memory_gb", "must not be negative")
	}
}

func (p *parser) validateMonitor(c *Config, m *MonitorConfig, field string, at func(...any) int) {
	m.Path = expandHome(m.Path)
	switch m.Type {
	case TypeLogTailer:
		if m.Path == "" {
			p.fail(at("path"), field+".path", "required: the log file to follow")
		}
	case TypeFileWatcher:
		if m.Path == "" {
			p.fail(at("path"), field+".path", "required: the folder to watch")
		}
		if _, err := filepath.Match(m.Pattern, "x"); err != nil {
			p.fail(at("pattern"), field+".pattern", "not a glob: %v", err)
		}
	case TypeProcessMonitor:
		if runtime.GOOS == "windows" {
			p.fail(at("type"), field+".type", "process_monitor is not available on Windows; use an exec monitor")
		}
		if m.Pattern == "" {
			p.fail(at("pattern"), field+".pattern", "required: a regular expression over process command lines")
		} else if _, err := regexp.Compile(m.Pattern); err != nil {
			p.fail(at("pattern"), field+".pattern", "not a regular expression: %v", err)
		}
	case TypeExec:
		if strings.TrimSpace(m.Command) == "" {
			p.fail(at("command"), field+".command", "required: the command whose output lines are events")
		}
	default:
		p.fail(at("type"), field+".type", "must be log_tailer, file_watcher, process_monitor or exec, not %q", m.Type)
	}
	if c.LLM.Provider != ProviderNone && c.LLM.Provider != "" {
		switch {
		case strings.TrimSpace(m.Prompt) == "":
			p.fail(at("prompt"), field+".prompt", "required with an LLM: the question, with {line} or {content}")
		case !strings.Contains(m.Prompt, "{line}") && !strings.Contains(m.Prompt, "{content}"):
			p.warn(at("prompt"), field+".prompt", "has neither {line} nor {content}: the LLM will not see the event")
		}
	}
	if m.Prefilter != nil {
		if _, err := regexp.Compile(*m.Prefilter); err != nil {
			p.fail(at("prefilter"), field+".prefilter", "not a regular expression: %v", err)
		}
	}
	if m.MaxBytes < 0 {
		p.fail(at("max_bytes"), field+".max_bytes", "must not be negative")
	}
	if m.Allocation != nil {
		p.validateAllocation(m.Allocation, field+".allocation", at, "allocation")
	}
}
