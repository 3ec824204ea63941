package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// notExported are variables of the submitter's session that --export=ALL
// does not carry: the node sets its own, and the client's token stays home.
var notExported = map[string]bool{
	"HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "MAIL": true, "PWD": true, "OLDPWD": true,
	"SHLVL": true, "_": true, "TERM": true, "DISPLAY": true, "XAUTHORITY": true, "HOSTNAME": true,
	"CUDA_VISIBLE_DEVICES": true, "DBUS_SESSION_BUS_ADDRESS": true, "LS_COLORS": true, "PS1": true,
}

// maxExported is how many of the submitter's variables --export=ALL
// carries at most: the server takes 200 a job, and sbatch adds its own.
const maxExported = 180

// exportable reports whether --export=ALL carries the variable: not the
// session's own, and only what the server takes (a plain name, a value up
// to 32 KiB; not a shell's exported functions, BASH_FUNC_module%%).
func exportable(name, val string) bool {
	for _, p := range []string{"GPUSCHED_", "SLURM_", "SSH_", "XDG_"} {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	if len(val) > 32<<10 || strings.TrimLeft(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != "" ||
		(name[0] >= '0' && name[0] <= '9') {
		return false
	}
	return !notExported[name]
}

// exportEnv reads --export as Slurm does: ALL (the default) carries the
// submitter's environment, NONE nothing, and a list VAR=val or VAR (the
// submitter's value) sets just those, with the rest too when ALL is in it.
func exportEnv(export string, environ []string) (map[string]string, []string, error) {
	env := map[string]string{}
	all := export == ""
	var set [][2]string
	var warnings []string
	for _, item := range strings.Split(export, ",") {
		switch k, v, hasVal := strings.Cut(item, "="); {
		case item == "":
		case strings.EqualFold(item, "ALL"):
			all = true
		case strings.EqualFold(item, "NONE"), strings.EqualFold(item, "NIL"):
		case hasVal:
			set = append(set, [2]string{k, v})
		default:
			found := false
			for _, kv := range environ {
				if name, val, _ := strings.Cut(kv, "="); name == k {
					set, found = append(set, [2]string{k, val}), true
				}
			}
			if !found {
				warnings = append(warnings, fmt.Sprintf("--export: %s is not set here; not exported", k))
			}
		}
	}
	if all {
		dropped := 0
		for _, kv := range environ {
			if name, val, ok := strings.Cut(kv, "="); ok && name != "" && exportable(name, val) {
				if len(env) == maxExported {
					dropped++
					continue
				}
				env[name] = val
			}
		}
		if dropped > 0 {
			warnings = append(warnings, fmt.Sprintf("--export=ALL: %d variables past the first %d not exported (a job takes 200)", dropped, maxExported))
		}
	}
	for _, kv := range set {
		env[kv[0]] = kv[1]
	}
	return env, warnings, nil
}

// lifecycle maps the directives about a job's life (mail, requeue, begin,
// signal, memory, and those that do not apply) into req, warning where
// they do not map exactly.
func (o *sbatchOpts) lifecycle(req *api.SubmitRequest) ([]string, error) {
	var warnings []string
	if o.mem != "" || o.memPerCPU != "" {
		warnings = append(warnings, "--mem/--mem-per-cpu: host memory is not reserved here; the job may use the node's")
	}
	if m := strings.ToUpper(o.mailType); m != "" && m != "NONE" {
		warnings = append(warnings, fmt.Sprintf("--mail-type=%s: notifications (start, end, failure) follow your notification preferences, not each job's", o.mailType))
	}
	if o.requeue && !o.noRequeue {
		req.MaxRetries = 1
	}
	if o.begin != "" && !strings.EqualFold(o.begin, "now") {
		warnings = append(warnings, fmt.Sprintf("--begin=%s: not supported; the job is queued now (book GPUs for a later start)", o.begin))
	}
	if o.signal != "" {
		sig := strings.TrimPrefix(strings.TrimPrefix(o.signal, "R:"), "B:")
		name, at, hasAt := strings.Cut(sig, "@")
		grace := 60
		if hasAt {
			n, err := strconv.Atoi(at)
			if err != nil || n < 1 || n > 3600 {
				return nil, fmt.Errorf("--signal=%s: want [B:]SIG[@SECONDS], 1 to 3600 seconds", o.signal)
			}
			grace = n
		}
		req.StopGrace = api.Seconds(grace)
		warnings = append(warnings, fmt.Sprintf("--signal=%s: at its time limit the job gets SIGTERM (not %s), then SIGKILL %d s later", o.signal, name, grace))
	}
	for _, name := range o.ignored {
		if why, ok := notApplicableWhy(name); ok {
			warnings = append(warnings, fmt.Sprintf("--%s: ignored; %s", name, why))
		}
	}
	return warnings, nil
}

// clusterGPUs is what the cluster has: each GPU's model (and MIG profile)
// and each node's GPU count.
type clusterGPUs struct {
	models  []string
	perNode []int
}

// checkType refuses a GPU type no node has, naming those there are.
func (c clusterGPUs) checkType(typ string) error {
	if typ == "" {
		return nil
	}
	t := strings.ToLower(typ)
	for _, m := range c.models {
		if strings.Contains(strings.ToLower(m), t) {
			return nil
		}
	}
	return fmt.Errorf("GPU type %q: no node has it; the cluster has: %s", typ, strings.Join(c.models, ", "))
}

// exclusive rounds a whole-node ask up to whole nodes when every node has
// the same number of GPUs; otherwise it keeps the ask and warns.
func (c clusterGPUs) exclusive(ask gpuAsk, nodes int) (gpuAsk, []string) {
	per := 0
	for _, n := range c.perNode {
		if per != 0 && n != per {
			return ask, []string{"--exclusive: nodes have different GPU counts; the job gets the GPUs it asked for, not whole nodes"}
		}
		per = n
	}
	if per == 0 {
		return ask, []string{"--exclusive: no nodes to measure; the job gets the GPUs it asked for"}
	}
	whole := max((ask.count+per-1)/per, nodes, 1)
	ask.count = whole * per
	return ask, nil
}
