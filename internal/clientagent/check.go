package clientagent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// Describe says, for `gpusched-agent check`, where the agent sends what
// and what each monitor would watch; a watched path that does not exist
// yet is a warning (it is waited for), not an error.
func Describe(c *Config) (lines, warnings []string) {
	lines = append(lines, fmt.Sprintf("control plane: %s (receives only the allocation request and the monitor's name)", c.GPUScheduler.APIEndpoint))
	switch c.LLM.Provider {
	case ProviderNone:
		lines = append(lines, "llm: none (the prefilter alone decides; nothing leaves this machine but allocation requests)")
	default:
		endpoint := c.LLM.BaseURL
		if endpoint == "" {
			endpoint = map[string]string{ProviderOpenAI: "https://api.openai.com/v1", ProviderAnthropic: "https://api.anthropic.com"}[c.LLM.Provider]
		}
		lines = append(lines, fmt.Sprintf("llm: %s model %s at %s (receives the prompts)", c.LLM.Provider, c.LLM.Model, endpoint))
	}
	if o := c.NotebookOffer; o.Enabled {
		which := "every monitor"
		if len(o.Monitors) > 0 {
			which = "monitors " + strings.Join(o.Monitors, ", ")
		}
		line := fmt.Sprintf("notebook offer: after a hold for %s, prints how to open a Jupyter notebook on %s (starts nothing)", which, words.Count(o.gpus(), "GPU"))
		if o.Start {
			line = fmt.Sprintf("notebook offer: after a hold for %s, starts a Jupyter notebook on %s (the control plane receives the session request: kind, GPUs, time limit, working directory from this file)",
				which, words.Count(o.gpus(), "GPU"))
		}
		lines = append(lines, line)
	}
	for i := range c.Monitors {
		m := &c.Monitors[i]
		what := ""
		switch m.Type {
		case TypeLogTailer:
			what = "follows " + m.Path
		case TypeFileWatcher:
			pat := m.Pattern
			if pat == "" {
				pat = "*"
			}
			what = fmt.Sprintf("watches %s %s", filepath.Join(m.Path, pat), map[bool]string{true: "(recursive)", false: ""}[m.Recursive == nil || *m.Recursive])
		case TypeProcessMonitor:
			what = fmt.Sprintf("new processes matching /%s/", m.Pattern)
		case TypeExec:
			what = "runs: " + m.Command
		}
		pre := defaultPrefilters[m.Type]
		if m.Prefilter != nil {
			pre = *m.Prefilter
		}
		a := c.allocationFor(m).holdRequest(m.Name)
		gpus := max(a.GPUCount, 1)
		if a.Requirements != nil && a.Requirements.GPUCount > 0 {
			gpus = a.Requirements.GPUCount
		}
		lines = append(lines, fmt.Sprintf("monitor %s (%s): %s; prefilter /%s/; cooldown %s; asks for %s",
			m.Name, m.Type, strings.TrimSpace(what), pre, m.Cooldown.D(DefaultCooldown), words.Count(gpus, "GPU")))
		if (m.Type == TypeLogTailer || m.Type == TypeFileWatcher) && m.Path != "" {
			if _, err := os.Stat(m.Path); err != nil {
				warnings = append(warnings, fmt.Sprintf("monitor %s: %s does not exist yet; it will be watched once it does", m.Name, m.Path))
			}
		}
	}
	return lines, warnings
}
