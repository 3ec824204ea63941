package clientagent

// NotebookOffer is notebook_offer in config.yaml: when a monitor says GPU
// work is about to start (and its hold was asked for), the agent offers a
// Jupyter notebook on a GPU: it prints the `gpusched notebook` command and
// the dashboard's sessions page (and logs them). It starts nothing unless
// start is true; then it asks the control plane for the notebook session
// itself (kind, GPUs, time limit and working directory from this section,
// nothing from the event) and prints where it will open. Off by default:
//
//	notebook_offer:
//	  enabled: true      # offer a notebook (default false)
//	  start: false       # also start it, without asking (default false)
//	  gpu_count: 1       # default 1
//	  gpu_type: H100     # optional: part of the GPU model's name
//	  time_limit: 4h     # optional: the policy's otherwise
//	  workdir: /data/ana # optional: on the GPU host; your home there otherwise
//	  monitors: [train]  # optional: only these monitors' events; all otherwise
type NotebookOffer struct {
	Enabled   bool     `yaml:"enabled"`
	Start     bool     `yaml:"start"`
	GPUCount  int      `yaml:"gpu_count"`
	GPUType   string   `yaml:"gpu_type"`
	TimeLimit Duration `yaml:"time_limit"`
	Workdir   string   `yaml:"workdir"`
	Monitors  []string `yaml:"monitors"`
}

// offersFor reports whether an event of monitor leads to the offer.
func (o *NotebookOffer) offersFor(monitor string) bool {
	if !o.Enabled {
		return false
	}
	if len(o.Monitors) == 0 {
		return true
	}
	for _, m := range o.Monitors {
		if m == monitor {
			return true
		}
	}
	return false
}

// gpus is how many GPUs the notebook asks for.
func (o *NotebookOffer) gpus() int { return max(o.GPUCount, 1) }

func (p *parser) validateNotebookOffer(c *Config, at func(...any) int) {
	o := &c.NotebookOffer
	if o.Start && !o.Enabled {
		p.fail(at("notebook_offer", "start"), "notebook_offer.start", "needs enabled: true as well")
	}
	if o.GPUCount < 0 || o.GPUCount > 64 {
		p.fail(at("notebook_offer", "gpu_count"), "notebook_offer.gpu_count", "must be 1–64")
	}
	if o.TimeLimit < 0 {
		p.fail(at("notebook_offer", "time_limit"), "notebook_offer.time_limit", "must not be negative")
	}
	names := map[string]bool{}
	for _, m := range c.Monitors {
		names[m.Name] = true
	}
	for i, m := range o.Monitors {
		if !names[m] {
			p.fail(at("notebook_offer", "monitors", i), "notebook_offer.monitors", "%q is not a monitor's name", m)
		}
	}
}
