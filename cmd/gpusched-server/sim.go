package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/sim"
)

// defaultSimLimit is how many jobs (the first by arrival) sim replays
// unless told otherwise: enough for a stable comparison, and small enough
// that every policy replays in a few seconds on two cores.
const defaultSimLimit = 1000

// simFlags are the options of gpusched sim.
type simFlags struct {
	trace, format, cluster string
	load, noise            float64
	estimates              string
	users, limit           int
	seed                   uint64
	policies               []string
	agent                  sim.SignalOptions // --agent-signals: holds off and on
	json                   bool
	checkpointable         float64         // share of jobs that checkpoint
	restartOverhead        time.Duration   // a resumed run's reload time
	report                 string          // --report FILE.html
	idle                   sim.IdleOptions // --idle-reclaim
	idleReclaim            bool
	noSteer                bool
	mig                    string // --mig 4x7:1g.10gb: compare with and without slices
	migStretch             bool
	shared                 string // --shared 4x4: compare with and without shared GPUs
}

func newSimCmd() *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "sim --trace FILE [--cluster 2x8:H100] [--load 0.9] [--policy fcfs,…]",
		Short: "Replay a job trace through the scheduling policies and compare them",
		Long: `Replay a GPU job trace through the scheduling core on a virtual clock (no database,
no wall clock) and compare policies side by side: waits (first start - arrival: mean,
median, p95 by nearest rank), job completion time, makespan, GPU utilization (GPU-seconds
held / (GPUs x makespan)), preemptions, and fairness: Jain's index over users of each
user's mean bounded slowdown (JCT / max(runtime, 10s), at least 1); 1 is equal treatment.

Traces: alibaba-openb (Alibaba cluster-trace-gpu-v2023 pods: CPU-only pods and pods that
never ran are skipped; a fractional GPU counts as 1 whole GPU, one MIG slice with --mig; qos LS/Guaranteed -> high,
Burstable -> normal, BE -> low priority; users hashed from the pod name), tiresias (users
hashed from job_id), csv (id,user,submit_s,duration_s,gpus[,priority][,estimate_s]
[,time_limit_s][,after][,array][,array_max_running]: after lists ids of earlier rows or an
earlier array's name, separated by spaces or ';'; rows sharing an array name are one array's
tasks, array_max_running its %N, how many of them may run at once, as Slurm's --array=0-9%3).
The format is detected from the header when --format is not given.

Arrival times are scaled so that the offered load, sum(gpus x runtime) / (cluster GPUs x
arrival span), is --load (0 keeps the trace's times). Jobs larger than a node may span
nodes; jobs larger than the cluster are skipped. Each job announces its exact runtime
as its estimate unless --estimate-noise is set (--estimates none: nothing). A preempted job
requeues at its original place; a checkpointing one (--checkpointable share, drawn per job)
keeps its progress and reloads for --restart-overhead, any other loses its progress.
Also reported: p95 JCT, finish-time fairness rho (per user: JCT over JCT alone on 1/N of
the cluster; mean and max) and the share of GPU time lost to preemption. With no --policy, fcfs, every preset and the server's
default ("default") are compared, in this order:
  ` + strings.Join(sim.PolicyNames(), ","),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSim(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.trace, "trace", "", "trace file (required)")
	fl.StringVar(&f.format, "format", "", "trace format: "+strings.Join(sim.Formats, ", ")+" (default: from the header)")
	fl.StringVar(&f.cluster, "cluster", "2x8:H100", "simulated cluster, NODESxGPUS:MODEL; @F after a model makes jobs run F times their trace runtime there, + joins node groups (1x8:L4@2.5+1x8:H100)")
	fl.StringVar(&f.mig, "mig", "", "split the cluster's first GPUs into MIG slices, GPUSxPERGPU:PROFILE[+…] (4x7:1g.10gb), and compare each policy with and without: fractional jobs (Alibaba gpu_milli < 1000) take one slice instead of a whole GPU")
	fl.StringVar(&f.shared, "shared", "", "share the cluster's first GPUs into slots, GPUSxSLOTS[+…] (4x4), and compare each policy with and without: fractional jobs (Alibaba gpu_milli < 1000) take their share of one shared GPU instead of a whole GPU")
	fl.BoolVar(&f.migStretch, "mig-stretch", false, "with --mig: a job on a slice smaller than the share of a GPU it used runs share/fraction times longer")
	fl.BoolVar(&f.noSteer, "no-steer", false, "on a cluster of several GPU models, do not steer jobs between them by the scoring model (SCHEDULER_* settings)")
	fl.Float64Var(&f.load, "load", 0.9, "offered load to scale arrivals to (0: trace times)")
	fl.IntVar(&f.users, "users", 15, "users to hash jobs into (traces without users)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the user hash and the estimate noise")
	fl.StringSliceVar(&f.policies, "policy", nil, "policies to compare, comma-separated (default: all, listed above)")
	fl.BoolVar(&f.json, "json", false, "print a JSON array, one object per policy")
	fl.IntVar(&f.limit, "limit", defaultSimLimit, "replay the first N jobs by arrival; 0 replays all")
	fl.Float64Var(&f.noise, "estimate-noise", 0, "sigma of log-normal noise on estimates (0: exact runtimes)")
	fl.Float64Var(&f.agent.Recall, "agent-signals", 0, "share of jobs the client agent signals ahead (0-1); >0 compares holds off and on instead")
	fl.Float64Var(&f.agent.Precision, "signal-precision", 0.8, "share of agent signals followed by their job (the rest are false alarms)")
	fl.DurationVar(&f.agent.Lead, "signal-lead", 5*time.Minute, "how long before its job a signal comes")
	fl.DurationVar(&f.agent.TTL, "hold-ttl", 15*time.Minute, "how long an unused hold keeps its GPUs")
	fl.StringVar(&f.estimates, "estimates", "exact", "what jobs announce: exact (or noisy) runtimes, none, or learned: the scoring model's estimate for the job's shape from jobs finished before it")
	fl.Float64Var(&f.checkpointable, "checkpointable", 0.5, "share of jobs that checkpoint (0-1): preempted, they keep their progress and resume after --restart-overhead")
	fl.StringVar(&f.report, "report", "", "also write FILE.html: one self-contained page with the CDFs of waits and JCTs, utilization over time and per-user slowdown")
	fl.DurationVar(&f.restartOverhead, "restart-overhead", sim.DefaultRestartOverhead, "reload time of each resumed run of a checkpointing job (GPU time lost)")
	// Idle reclaim: what giving idle GPUs back would return.
	fl.BoolVar(&f.idleReclaim, "idle-reclaim", false, "report the GPU time an idle release policy would give back (idle tails marked per --idle-share, --idle-tail-mean)")
	fl.Float64Var(&f.idle.Share, "idle-share", 0.2, "share of jobs whose GPUs sit idle at the end of their hold")
	fl.DurationVar(&f.idle.TailMean, "idle-tail-mean", 2*time.Hour, "mean idle tail (exponential, capped at the runtime)")
	fl.DurationVar(&f.idle.After, "idle-after", 2*time.Hour, "the policy's idle_after")
	fl.DurationVar(&f.idle.Grace, "idle-grace", 30*time.Minute, "the policy's idle_grace")
	return cmd
}

// runSim reads, prepares, replays and prints.
func runSim(cmd *cobra.Command, f simFlags) error {
	if f.trace == "" {
		return errors.New("give --trace FILE (e.g. --trace shared/traces/alibaba-v2023-openb-pods.csv)")
	}
	c, err := sim.ParseCluster(f.cluster)
	if err != nil {
		return err
	}
	if c.MIG, err = sim.ParseMIG(f.mig); err != nil {
		return err
	}
	if c.Shared, err = sim.ParseShared(f.shared); err != nil {
		return err
	}
	if f.shared != "" && f.mig != "" {
		return errors.New("--shared and --mig each compare fractions with whole GPUs: give one of them")
	}
	if f.migStretch && f.mig == "" {
		return errors.New("--mig-stretch stretches jobs on MIG slices: give --mig too")
	}
	policies, err := sim.Policies(f.policies)
	if err != nil {
		return err
	}
	tr, err := sim.ReadTrace(f.trace, f.format, sim.ReadOptions{Users: f.users, Seed: f.seed})
	if err != nil {
		return err
	}
	var problems []string
	sc, _ := scoringConfig(os.Getenv, func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) })
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	w, err := sim.Prepare(tr.Jobs, c, sim.PrepareOptions{Limit: f.limit, Load: f.load, EstimateNoise: f.noise, Seed: f.seed,
		NoEstimates: f.estimates == "none", Checkpointable: f.checkpointable, RestartOverhead: f.restartOverhead,
		NoSteering: f.noSteer, Scoring: sc, MIGStretch: f.migStretch})
	if err != nil {
		return fmt.Errorf("%s: %w", f.trace, err)
	}
	if err := sim.LearnDistributions(w, sc); err != nil {
		return err
	}
	switch f.estimates {
	case "exact":
	case "none":
		if f.noise > 0 {
			return errors.New("--estimates none announces nothing: leave out --estimate-noise")
		}
	case "learned":
		if f.noise > 0 {
			return errors.New("--estimates learned replaces what jobs announce: leave out --estimate-noise")
		}
		sum, err := sim.LearnEstimates(w, sc, time.Duration(scheduler.DefaultConfig().DefaultDuration))
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "estimates learned per job shape (%d shapes): %d jobs learned, %d announced the default; median |ln(estimate/runtime)| %.2f (learned) %.2f (all); %.0f%% underestimated\n",
			sum.Types, sum.Learned, sum.Defaulted, sum.MedianLogError, sum.MedianLogErrorAll, 100*sum.Underestimated)
	default:
		return fmt.Errorf("--estimates %q must be exact, none or learned", f.estimates)
	}
	if f.idleReclaim {
		f.idle.Seed = f.seed
		r, err := sim.CompareIdle(w, policies, f.idle, runtime.GOMAXPROCS(0))
		if err != nil {
			return err
		}
		if f.json {
			return r.WriteJSON(cmd.OutOrStdout())
		}
		return r.WriteText(cmd.OutOrStdout())
	}
	if f.agent.Recall > 0 {
		f.agent.Seed = f.seed
		return sim.RunHolds(cmd.OutOrStdout(), w, policies, f.agent, f.json, runtime.GOMAXPROCS(0))
	}
	if f.mig != "" || f.shared != "" {
		return runSimMIG(cmd, f, sim.Report{Trace: tr, Workload: w, Users: f.users, Seed: f.seed, Load: f.load, Limit: f.limit}, policies)
	}
	ms, err := sim.Compare(w, policies, runtime.GOMAXPROCS(0))
	if err != nil {
		return err
	}
	rep := sim.Report{Trace: tr, Workload: w, Users: f.users, Seed: f.seed, Load: f.load, EstimateNoise: f.noise, Limit: f.limit, Metrics: ms}
	if f.report != "" {
		if err := writeReportFile(f.report, rep); err != nil {
			return err
		}
	}
	if f.json {
		return rep.WriteJSON(cmd.OutOrStdout())
	}
	return rep.WriteText(cmd.OutOrStdout())
}

// runSimMIG replays every policy with and without the MIG layout and
// prints the comparison.
func runSimMIG(cmd *cobra.Command, f simFlags, rep sim.Report, policies []sim.Policy) error {
	if f.idleReclaim || f.agent.Recall > 0 || f.report != "" {
		return errors.New("--mig compares slices with whole GPUs on its own: leave out --idle-reclaim, --agent-signals and --report")
	}
	rows, err := sim.CompareMIG(rep.Workload, policies, runtime.GOMAXPROCS(0))
	if err != nil {
		return err
	}
	if f.json {
		return sim.WriteMIGJSON(cmd.OutOrStdout(), rows)
	}
	return sim.WriteMIGText(cmd.OutOrStdout(), rep, rows)
}

// writeReportFile writes the HTML report to path.
func writeReportFile(path string, rep sim.Report) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("sim: --report: %w", err)
	}
	if err := rep.WriteHTML(fh); err != nil {
		fh.Close()
		return err
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("sim: --report: %w", err)
	}
	return nil
}
