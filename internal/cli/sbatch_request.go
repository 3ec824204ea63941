package cli

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// sbatchInput is everything a batch submission is built from besides the
// options: the script, its arguments, and the submitter's surroundings.
type sbatchInput struct {
	scriptPath string
	script     string
	args       []string
	environ    []string // the submitter's environment, for --export
	cwd        string   // the submit directory
	// report, when set, receives how sbatch should answer (--parsable,
	// --quiet, --wait), from the script's directives and the command line.
	report *sbatchReport
}

// maxBatchCommand is the longest command a job takes (the server's limit).
const maxBatchCommand = 16 << 10

// gpuAsk is the GPUs a job asks for: total, and a type when named.
type gpuAsk struct {
	count   int
	gpuType string
}

// gpuAsk reads the GPU directives into the job's total: --gpus is the whole
// job's, --gres and --gpus-per-node are per node, --gpus-per-task per
// task. None of them: one GPU, with a warning.
func (o *sbatchOpts) gpuAsk() (gpuAsk, []string, error) {
	var warnings []string
	perNode := func(n int) int { return n * max(o.nodes, 1) }
	var spec, flag string
	var scale func(int) int
	switch {
	case o.gpus != "":
		spec, flag, scale = o.gpus, "--gpus", func(n int) int { return n }
	case o.gpusPerNode != "":
		spec, flag, scale = o.gpusPerNode, "--gpus-per-node", perNode
	case o.gres != "":
		g, w, err := gresGPU(o.gres)
		if err != nil {
			return gpuAsk{}, nil, err
		}
		warnings = append(warnings, w...)
		if g == "" {
			return gpuAsk{count: 1}, append(warnings, "no GPUs asked for (--gres has no gpu): the job gets 1 GPU"), nil
		}
		spec, flag, scale = g, "--gres=gpu", perNode
	case o.gpusPerTask != "":
		spec, flag, scale = o.gpusPerTask, "--gpus-per-task", func(n int) int { return n * o.taskCount() }
	default:
		return gpuAsk{count: 1}, []string{"no GPUs asked for (--gres, --gpus): the job gets 1 GPU"}, nil
	}
	typ, n, err := typedCount(spec)
	if err != nil {
		return gpuAsk{}, nil, fmt.Errorf("%s=%s: %w", flag, spec, err)
	}
	return gpuAsk{count: scale(n), gpuType: typ}, warnings, nil
}

// gresGPU picks the gpu entry of a --gres list ("gpu:a100:2,shard:1") as
// "[TYPE:]N"; other resources are warned about.
func gresGPU(gres string) (string, []string, error) {
	var warnings []string
	gpu := ""
	for _, r := range strings.Split(gres, ",") {
		name, rest, _ := strings.Cut(r, ":")
		if name != "gpu" {
			warnings = append(warnings, fmt.Sprintf("--gres=%s: only gpu is a resource here; %s ignored", gres, name))
			continue
		}
		switch {
		case rest == "":
			gpu = "1"
		case !strings.Contains(rest, ":") && strings.Trim(rest, "0123456789") != "":
			gpu = rest + ":1" // gpu:a100
		default:
			gpu = rest
		}
	}
	return gpu, warnings, nil
}

// typedCount reads "[TYPE:]N".
func typedCount(s string) (string, int, error) {
	typ, num := "", s
	if i := strings.LastIndex(s, ":"); i >= 0 {
		typ, num = s[:i], s[i+1:]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("want [TYPE:]N with N at least 1")
	}
	return typ, n, nil
}

// taskCount is SLURM_NTASKS: --ntasks, else --ntasks-per-node per node,
// else one a node.
func (o *sbatchOpts) taskCount() int {
	switch {
	case o.ntasks > 0:
		return o.ntasks
	case o.ntasksPerNode > 0:
		return o.ntasksPerNode * max(o.nodes, 1)
	}
	return max(o.nodes, 1)
}

// request builds the submission and the warnings that go with it. ask is
// the GPUs after any rounding to whole nodes (see exclusiveGPUs).
func (o *sbatchOpts) request(in sbatchInput, ask gpuAsk) (api.SubmitRequest, []string, error) {
	var warnings []string
	req := api.SubmitRequest{Name: o.name, Executor: "node", GPUModel: ask.gpuType, Array: o.array}
	if req.Name == "" {
		req.Name = filepath.Base(in.scriptPath)
	}
	count := ask.count
	req.GPUCount = &count
	req.AllowMultiNode = o.nodes > 1
	if o.nodes > 1 && count%o.nodes == 0 { // -N is honoured exactly: that many nodes, the same GPUs on each
		req.Nodes = o.nodes
	}
	req.Command = batchCommand(in.script, in.args)
	if len(req.Command) > maxBatchCommand {
		return req, nil, fmt.Errorf("%s: %d bytes; a job carries a script of at most about %d KiB: keep the script short and have it run the rest from files",
			in.scriptPath, len(in.script), maxBatchCommand>>10)
	}
	req.Workdir = in.cwd
	if o.chdir != "" {
		req.Workdir = o.chdir
		if !filepath.IsAbs(o.chdir) {
			req.Workdir = filepath.Join(in.cwd, o.chdir)
		}
	}
	switch t := strings.ToUpper(strings.TrimSpace(o.time)); t {
	case "":
	case "0", "UNLIMITED", "INFINITE":
		// Slurm's unlimited is the partition's maximum: ask for the
		// longest limit there is; submitBatch lowers it to the policy's.
		req.TimeLimit = api.MaxSeconds
	default:
		var err error
		if req.TimeLimit, err = api.ParseTimeLimit(o.time); err != nil {
			return req, nil, fmt.Errorf("--time: %w", err)
		}
	}
	if o.array != "" {
		if _, err := api.ParseArray(o.array); err != nil {
			return req, nil, fmt.Errorf("--array: %w", err)
		}
	}
	if o.dependency != "" {
		ds, err := api.ParseSlurmDependency(o.dependency)
		if err != nil {
			return req, nil, err
		}
		req.After = ds
	}
	env, w, err := exportEnv(o.export, in.environ)
	if err != nil {
		return req, nil, err
	}
	warnings = append(warnings, w...)
	env["SLURM_SUBMIT_DIR"] = in.cwd
	env["SLURM_NTASKS"] = strconv.Itoa(o.taskCount())
	if o.ntasksPerNode > 0 {
		env["SLURM_NTASKS_PER_NODE"] = strconv.Itoa(o.ntasksPerNode) // as Slurm sets it
	}
	if o.cpusPerTask > 0 {
		env["SLURM_CPUS_PER_TASK"] = strconv.Itoa(o.cpusPerTask)
	}
	// As Slurm: without -o, stdout (and stderr, without -e) go to
	// slurm-%j.out, or slurm-%A_%a.out for an array's task, in the job's
	// working directory.
	switch {
	case o.output != "":
		env["GPUSCHED_STDOUT"] = o.output
	case o.array != "":
		env["GPUSCHED_STDOUT"] = "slurm-%A_%a.out"
	default:
		env["GPUSCHED_STDOUT"] = "slurm-%j.out"
	}
	if o.errorF != "" {
		env["GPUSCHED_STDERR"] = o.errorF
	}
	if o.mem != "" {
		env["SLURM_MEM_PER_NODE"] = o.mem
	}
	if o.memPerCPU != "" {
		env["SLURM_MEM_PER_CPU"] = o.memPerCPU
	}
	req.Env = env
	more, err := o.lifecycle(&req)
	if err != nil {
		return req, nil, err
	}
	return req, append(warnings, more...), nil
}
