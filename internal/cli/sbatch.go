package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// sbatchHelp explains what sbatch does beyond its options.
const sbatchHelp = `Submit a Slurm batch script as it is: #SBATCH lines before the first command
are read (options given here override them), and the script runs on a node
with its shebang's interpreter (default /bin/sh) and ARGS, in --chdir or the
current directory. The job sees SLURM_JOB_ID, SLURM_JOB_NAME, SLURM_NTASKS,
SLURM_GPUS_ON_NODE, SLURM_SUBMIT_DIR and the rest. -o/-e name files on the
node relative to the working directory, with %j (job id), %x (name), %A
(array id), %a (task id), %u (user), %N (node) and %%; without -o the output
is the job's log (gpusched logs ID). --wrap CMD runs CMD with /bin/sh. Slurm
options that mean nothing here (--partition, --account, --qos, …) and unknown
#SBATCH lines are accepted with a warning.

Usage:
  gpusched sbatch [OPTIONS] script.sh [ARGS…]

Options:
`

func newSbatchCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "sbatch [OPTIONS] script.sh [ARGS…]",
		Short:              "Submit a Slurm batch script as it is (#SBATCH directives, SLURM_* variables)",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			var probe sbatchOpts
			fs := sbatchFlagSet(&probe)
			help := fs.BoolP("help", "h", false, "this help")
			asJSON := fs.Bool("json", false, "print the job as JSON")
			if err := fs.Parse(args); err != nil {
				return fmt.Errorf("sbatch: %w", err)
			}
			if *help || (fs.NArg() == 0 && probe.wrap == "") {
				fmt.Fprint(cmd.OutOrStdout(), sbatchHelp+fs.FlagUsages())
				if *help {
					return nil
				}
				return errors.New("sbatch: give a script (or --wrap CMD)")
			}
			path, text, scriptArgs := "wrap", []byte("#!/bin/sh\n"+probe.wrap+"\n"), fs.Args()
			if probe.wrap == "" {
				path, scriptArgs = fs.Arg(0), fs.Args()[1:]
				var err error
				if text, err = os.ReadFile(path); err != nil {
					return fmt.Errorf("sbatch: %w", err)
				}
			}
			cwd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("sbatch: current directory: %w", err)
			}
			var report sbatchReport
			in := sbatchInput{scriptPath: path, script: string(text), args: scriptArgs, environ: os.Environ(), cwd: cwd, report: &report}
			c, err := apiClient(cmd, os.Getenv)
			if err != nil {
				return err
			}
			cluster := func() (clusterGPUs, error) { return fetchClusterGPUs(cmd, c) }
			req, warnings, err := buildSbatch(in, args[:len(args)-fs.NArg()], cluster)
			for _, w := range warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "sbatch: warning:", w)
			}
			if err != nil {
				return fmt.Errorf("sbatch: %w", err)
			}
			job, err := submitBatch(cmd, c, req)
			if err != nil {
				return err
			}
			if err := report.submitted(cmd.OutOrStdout(), cmd.ErrOrStderr(), job, *asJSON); err != nil {
				return err
			}
			if !report.wait {
				return nil
			}
			return waitBatch(cmd, c, job, report.quiet)
		},
	}
}

// buildSbatch reads a script's directives, then the command line's options
// over them, and builds the submission; cluster is asked only when a GPU
// type or whole nodes need checking.
func buildSbatch(in sbatchInput, options []string, cluster func() (clusterGPUs, error)) (api.SubmitRequest, []string, error) {
	var o sbatchOpts
	fs := sbatchFlagSet(&o)
	fs.Bool("json", false, "")
	ds, err := scriptDirectives(in.script)
	if err != nil {
		return api.SubmitRequest{}, nil, fmt.Errorf("%s: %w", in.scriptPath, err)
	}
	warnings, err := parseDirectives(fs, ds)
	if err != nil {
		return api.SubmitRequest{}, nil, fmt.Errorf("%s: %w", in.scriptPath, err)
	}
	if err := fs.Parse(options); err != nil {
		return api.SubmitRequest{}, warnings, err
	}
	ask, w, err := o.gpuAsk()
	warnings = append(warnings, w...)
	if err != nil {
		return api.SubmitRequest{}, warnings, err
	}
	if ask.gpuType != "" || o.exclusive != "" {
		cl, err := cluster()
		if err != nil {
			return api.SubmitRequest{}, warnings, err
		}
		if err := cl.checkType(ask.gpuType); err != nil {
			return api.SubmitRequest{}, warnings, err
		}
		if o.exclusive != "" {
			var w []string
			ask, w = cl.exclusive(ask, o.nodes)
			warnings = append(warnings, w...)
		}
	}
	if in.report != nil {
		*in.report = o.report
	}
	req, w, err := o.request(in, ask)
	return req, append(warnings, w...), err
}

// fetchClusterGPUs asks the server which GPU models (and MIG profiles) its
// nodes have and how many GPUs each node has.
func fetchClusterGPUs(cmd *cobra.Command, c *apiclient.Client) (clusterGPUs, error) {
	var st struct {
		Nodes []struct {
			GPUs []struct {
				Model   string `json:"model"`
				Kind    string `json:"kind"`
				Profile string `json:"profile"`
			} `json:"gpus"`
		} `json:"nodes"`
	}
	if err := c.Do(cmd.Context(), "GET", "/api/v1/cluster/gpu-status", nil, &st); err != nil {
		return clusterGPUs{}, fmt.Errorf("cluster status, to check the GPU type: %w", err)
	}
	var out clusterGPUs
	seen := map[string]bool{}
	for _, n := range st.Nodes {
		whole := 0
		for _, g := range n.GPUs {
			name := g.Model
			if g.Kind == "mig" && g.Profile != "" {
				name = g.Profile
			} else {
				whole++
			}
			if !seen[name] {
				seen[name] = true
				out.models = append(out.models, name)
			}
		}
		out.perNode = append(out.perNode, whole)
	}
	sort.Strings(out.models)
	return out, nil
}

// overMax reads the policy's maximum from the server's refusal of a time
// limit over it ("… the maximum of 3 days (259200 seconds) …").
var overMax = regexp.MustCompile(`\((\d+) seconds\)`)

// submitBatch submits req; a time limit of "the longest" (Slurm's --time=0)
// over the policy's maximum is lowered to that maximum and sent again.
func submitBatch(cmd *cobra.Command, c *apiclient.Client, req api.SubmitRequest) (*api.Job, error) {
	job, err := c.Submit(cmd.Context(), req, "")
	var e *api.Error
	if err == nil || req.TimeLimit != api.MaxSeconds || !errors.As(err, &e) || e.Code != api.CodeTimeLimitOverMax {
		return job, err
	}
	m := overMax.FindStringSubmatch(e.Message)
	if m == nil {
		return nil, err
	}
	n, convErr := strconv.ParseInt(m[1], 10, 64)
	if convErr != nil || n < 1 {
		return nil, err
	}
	req.TimeLimit = api.Seconds(n)
	return c.Submit(cmd.Context(), req, "")
}

// printSubmitted prints a queued job or array as submit does.
func printSubmitted(w io.Writer, job *api.Job, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(job)
	}
	if a := job.Array; a != nil {
		_, err := fmt.Fprintf(w, "array %d queued: %s [%s] (%s each, %s priority)\n", a.ID, words.Count(a.TaskCount, "task"), a.Spec,
			askWords(*job), job.PriorityName)
		return err
	}
	_, err := fmt.Fprintf(w, "job %d queued (%d GPU%s, %s priority)\n", job.ID, job.RequestedGPUs, plural(job.RequestedGPUs), job.PriorityName)
	return err
}
