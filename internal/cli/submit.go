package cli

import (
	"encoding/json"
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
	var gpus int
	var priority, duration, runtimeEnv string
	var stopGrace time.Duration
	var env []string
	var asJSON bool
	var idemKey string
	cmd := &cobra.Command{
		Use:   "submit [flags] -- COMMAND [ARGS…]",
		Short: "Queue a job; prints its id and place in the queue",
		Example: `  gpusched submit -g 2 --time 3h --name sweep-7 -- python train.py --lr 3e-4
  gpusched submit -g 8 --gpu-type H100 --priority high -- torchrun --nproc-per-node 8 train.py`,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			req.Command, req.GPUCount = shellJoin(args), &gpus
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
					return fmt.Errorf("--time: %w", err)
				}
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
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(job)
			}
			fmt.Fprintln(cmd.OutOrStdout(), submitted(job, placeOf(cmd.Context(), c, job)))
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVarP(&gpus, "gpus", "g", 1, "GPUs, all at once (gang)")
	f.Float64Var(&memGB, "mem", 0, "minimum memory per GPU in GB")
	f.StringVar(&req.GPUModel, "gpu-type", "", "GPU model, e.g. H100 (matches part of the name)")
	deprecatedAlias(cmd, "model", "gpu-type")
	f.StringVarP(&priority, "priority", "p", "", "low, normal, high or critical (admins)")
	f.StringVarP(&duration, "time", "t", "", "estimated run time, e.g. 90m or 2h (helps backfill and ETAs)")
	f.StringVar(&req.Name, "name", "", "a name for the job")
	f.BoolVar(&req.AllowMultiNode, "multi-node", false, "may span nodes")
	f.StringVar(&req.Executor, "executor", "", "node (a node agent runs it), lease (you run it), ray (a Ray cluster runs it); default: the server's")
	f.StringVar(&runtimeEnv, "runtime-env", "", `with --executor ray: Ray runtime_env as JSON, e.g. '{"pip": ["torch"]}'`)
	f.StringVar(&req.Workdir, "workdir", "", "working directory (default: the current one)")
	f.StringArrayVarP(&env, "env", "e", nil, "NAME=VALUE to set, repeatable")
	f.StringVar(&req.JobType, "job-type", "", "job type, e.g. finetune-7b: run times are learned per type")
	deprecatedAlias(cmd, "type", "job-type")
	f.BoolVar(&asJSON, "json", false, "print the job as JSON")
	f.StringVar(&idemKey, "idempotency-key", "", "for scripts that retry: the same key again returns the job it queued instead of queueing another")
	f.BoolVar(&req.Checkpoint, "checkpoint", false, "the job saves its state on SIGTERM and resumes (GPUSCHED_RESTART_COUNT > 0): it may be preempted when it has had much GPU time")
	f.DurationVar(&stopGrace, "stop-grace", 0, "with --checkpoint: time to save between SIGTERM and SIGKILL (default 60s)")
	return cmd
}

// shellJoin joins argv into one command line, quoting what a shell would split.
// rayRuntimeEnvVar is ray.RuntimeEnvVar, the job variable that carries a Ray
// job's runtime_env (a test keeps them equal): the client does not link the
// server's Ray client.
const rayRuntimeEnvVar = "RAY_RUNTIME_ENV"

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
