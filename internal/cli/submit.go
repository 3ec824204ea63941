package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

func newSubmitCmd() *cobra.Command {
	var req api.SubmitRequest
	var memGB float64
	var gpus, nodes, perNode int
	var priority, duration, limit, runtimeEnv string
	var stopGrace time.Duration
	var env, after []string
	var dependency string
	var asJSON bool
	var idemKey string
	var share float64
	var gpuMemory string
	cmd := &cobra.Command{
		Use:   "submit [flags] -- COMMAND [ARGS…] | 'COMMAND LINE'",
		Short: "Queue a job; prints its id and place in the queue",
		Example: `  gpusched submit -g 2 --time 3h --estimate 2h --name sweep-7 -- python train.py --lr 3e-4
  gpusched submit -g 8 --gpu-type H100 --priority high -- torchrun --nproc-per-node 8 train.py
  gpusched submit --nodes 2 --gpus-per-node 8 -- sh -c 'torchrun --nnodes $GPUSCHED_NNODES --node-rank $GPUSCHED_NODE_RANK --nproc-per-node 8 --master-addr $MASTER_ADDR --master-port $MASTER_PORT train.py'
  gpusched submit -g 1 --after ok:41 --name evaluate -- python eval.py
  gpusched submit -g 1 -- 'python prep.py && python train.py'   # one argument: a shell command line
  gpusched submit -g 1 --array 0-99%8 --name sweep -- sh -c 'python train.py --seed $GPUSCHED_ARRAY_TASK_ID'
  gpusched submit -g 2 --gpu-type 1g.10gb -- python eval.py   # two MIG slices
  gpusched submit --gpu-share 0.25 -- python notebook_eval.py  # a quarter of a shared GPU
  gpusched submit --gpu-memory 20G -- python small_finetune.py # 20 GB of a shared GPU`,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			if err := nodeShape(cmd, &gpus, nodes, perNode, &req.AllowMultiNode); err != nil {
				return err
			}
			req.Command, req.GPUCount = commandLine(args), &gpus
			if nodes > 1 { // the shape: exactly N nodes, gpus/N on each (the server checks it divides)
				req.Nodes, req.GPUsPerNode = nodes, perNode
			}
			if share > 0 || gpuMemory != "" { // part of one shared GPU: -g does not apply unless given
				if !cmd.Flags().Changed("gpus") {
					req.GPUCount = nil
				}
				if share > 0 {
					req.GPUShare = &share
				}
				if gpuMemory != "" {
					if _, err := api.ParseMemoryMiB(gpuMemory); err != nil {
						return fmt.Errorf("--gpu-memory: %w", err)
					}
					req.GPUMemory = gpuMemory
				}
			}
			if memGB > 0 {
				req.MemoryGB = &memGB
			}
			if priority != "" {
				if req.Priority, err = api.ParsePriority(priority); err != nil {
					return fmt.Errorf("--priority: %w", err)
				}
			}
			if duration != "" {
				if req.EstimatedDuration, err = api.ParseSeconds(duration); err != nil {
					return fmt.Errorf("--estimate: %w", err)
				}
			}
			if limit != "" {
				if req.TimeLimit, err = api.ParseTimeLimit(limit); err != nil {
					return fmt.Errorf("--time: %w", err)
				}
			}
			for _, a := range after {
				ds, err := api.ParseAfter(a)
				if err != nil {
					return err
				}
				req.After = append(req.After, ds...)
			}
			if dependency != "" {
				ds, err := api.ParseSlurmDependency(dependency)
				if err != nil {
					return err
				}
				req.After = append(req.After, ds...)
			}
			if stopGrace != 0 {
				if req.StopGrace, err = api.ParseSeconds(stopGrace.String()); err != nil {
					return fmt.Errorf("--stop-grace: %w", err)
				}
			}
			if len(env) > 0 {
				req.Env = map[string]string{}
				for _, kv := range env {
					k, v, ok := strings.Cut(kv, "=")
					if !ok {
						return fmt.Errorf("--env %q: want NAME=VALUE", kv)
					}
					req.Env[k] = v
				}
			}
			if runtimeEnv != "" {
				if req.Env == nil {
					req.Env = map[string]string{}
				}
				req.Env[rayRuntimeEnvVar] = runtimeEnv
			}
			if req.Workdir == "" && req.Executor != "lease" && req.Executor != "ray" { // Ray takes runtime_env's working_dir
				req.Workdir, _ = os.Getwd()
			}
			// No key of its own: one call sends one request on a fresh
			// connection, which net/http never replays, and a keyed
			// submission costs the server a transaction and a second row
			// (about 1 ms a call). A script that retries passes its own.
			job, err := c.Submit(cmd.Context(), req, idemKey)
			if err != nil {
				return withFlagNames(err, jobFlags)
			}
			if asJSON || job.Array != nil {
				return printSubmitted(cmd.OutOrStdout(), job, asJSON)
			}
			fmt.Fprintln(cmd.OutOrStdout(), submitted(job, placeOf(cmd.Context(), c, job)))
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVarP(&gpus, "gpus", "g", 1, "GPUs, all at once (gang)")
	f.Float64Var(&memGB, "mem", 0, "minimum memory per GPU in GB")
	f.Float64Var(&share, "gpu-share", 0, "a fraction of one shared GPU, e.g. 0.25 (instead of whole GPUs)")
	f.StringVar(&gpuMemory, "gpu-memory", "", "memory of one shared GPU, e.g. 20G (instead of whole GPUs; with --gpu-share, both)")
	f.StringVar(&req.GPUModel, "gpu-type", "", "GPU model, e.g. H100 (matches part of the name), or a MIG profile, e.g. 1g.10gb (that slice of a GPU)")
	deprecatedAlias(cmd, "model", "gpu-type")
	f.StringVarP(&priority, "priority", "p", "", "low, normal, high or critical (admins)")
	f.StringVarP(&limit, "time", "t", "", "time limit, as Slurm's: at it the job gets SIGTERM, its stop grace, then SIGKILL, and ends timeout (2h, 90m, or Slurm's MM, HH:MM:SS, D-HH:MM…; default: the policy's)")
	f.StringVar(&duration, "estimate", "", "estimated run time, e.g. 90m or 2h (helps backfill and ETAs; never enforced)")
	f.StringVar(&req.Name, "name", "", "a name for the job")
	f.BoolVar(&req.AllowMultiNode, "multi-node", false, "may span nodes: one part per node, each seeing MASTER_ADDR, MASTER_PORT, NODE_RANK, WORLD_SIZE")
	f.IntVarP(&nodes, "nodes", "N", 0, "run across N nodes (one part each; with --gpus-per-node, -g is N × that)")
	f.IntVar(&perNode, "gpus-per-node", 0, "GPUs on each node, with --nodes")
	f.StringVar(&req.Executor, "executor", "", "node (a node agent runs it), lease (you run it), ray (a Ray cluster runs it); default: the server's")
	f.StringVar(&runtimeEnv, "runtime-env", "", `with --executor ray: Ray runtime_env as JSON, e.g. '{"pip": ["torch"]}'`)
	f.StringVar(&req.Workdir, "workdir", "", "working directory (default: the current one)")
	f.StringArrayVarP(&env, "env", "e", nil, "NAME=VALUE to set, repeatable")
	f.StringVar(&req.JobType, "job-type", "", "job type, e.g. finetune-7b: run times are learned per type")
	deprecatedAlias(cmd, "type", "job-type")
	f.BoolVar(&asJSON, "json", false, "print the job as JSON")
	f.StringVarP(&req.Array, "array", "a", "", "queue an array of tasks, as Slurm's --array: 0-99, 1,3,5-7, 0-15:4, then %N to run at most N at once (0-99%8); each task sees GPUSCHED_ARRAY_TASK_ID")
	f.StringArrayVar(&after, "after", nil, "wait for other jobs to end: ok:ID[,ID] (completed), notok:ID (failed, canceled, timed out), any:ID or ID (however); repeatable, all must hold")
	f.StringVarP(&dependency, "dependency", "d", "", "Slurm's form of --after: afterok:ID[:ID],afterany:ID,afternotok:ID,singleton")
	f.StringVar(&idemKey, "idempotency-key", "", "for scripts that retry: the same key again returns the job it queued instead of queueing another")
	f.BoolVar(&req.Checkpoint, "checkpoint", false, "the job saves its state on SIGTERM and resumes (GPUSCHED_RESTART_COUNT > 0): it may be preempted when it has had much GPU time")
	f.DurationVar(&stopGrace, "stop-grace", 0, "time between SIGTERM and SIGKILL at the time limit, and to save when preempted with --checkpoint (default 60s)")
	return cmd
}

// rayRuntimeEnvVar is ray.RuntimeEnvVar, the job variable that carries a Ray
// job's runtime_env (a test keeps them equal): the client does not link the
// server's Ray client.
const rayRuntimeEnvVar = "RAY_RUNTIME_ENV"

// commandLine is the job's command from submit's arguments: one argument
// alone is a command line already, as ssh and sbatch --wrap take it
// (`gpusched submit -- 'python a.py && python b.py'` runs both); more are
// argv, joined with shellJoin.
func commandLine(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return shellJoin(args)
}

// shellJoin joins argv into one command line, quoting what a shell would
// split.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// nodeShape turns --nodes N --gpus-per-node G into N × G GPUs that may
// span nodes; --nodes alone lets -g span them.
func nodeShape(cmd *cobra.Command, gpus *int, nodes, perNode int, multi *bool) error {
	switch {
	case nodes < 0 || perNode < 0:
		return fmt.Errorf("--nodes and --gpus-per-node must be positive")
	case perNode > 0 && nodes == 0:
		return fmt.Errorf("--gpus-per-node needs --nodes")
	case perNode > 0 && cmd.Flags().Changed("gpus") && *gpus != nodes*perNode:
		return fmt.Errorf("-g %d is not --nodes %d × --gpus-per-node %d; give one or the other", *gpus, nodes, perNode)
	case perNode > 0:
		*gpus = nodes * perNode
	}
	if nodes > 1 {
		*multi = true
	}
	return nil
}
