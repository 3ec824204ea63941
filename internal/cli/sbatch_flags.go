package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// sbatchOpts is what a batch script's directives and sbatch's options say;
// options parsed later (the command line's) override earlier ones (the
// script's).
type sbatchOpts struct {
	name, time, gres, gpus, gpusPerNode, gpusPerTask  string
	nodes, ntasks, ntasksPerNode, cpusPerTask         int
	mem, memPerCPU, array, dependency, output, errorF string
	chdir, export, mailType, begin, signal, exclusive string
	wrap                                              string
	requeue, noRequeue                                bool
	report                                            sbatchReport
	// ignored holds the directives that do not apply here, by name, in
	// the order first seen.
	ignored []string
	// warned is which directives have a warning already.
	warned map[string]bool
}

// notApplicableOption is one of Slurm's directives that means nothing
// here: its names and why.
type notApplicableOption struct{ long, short, why string }

// notApplicable lists Slurm's directives that mean nothing here: they are
// accepted with one warning each.
var notApplicable = []notApplicableOption{
	{"partition", "p", "there are no partitions: every node serves the one queue"},
	{"account", "A", "usage is counted per user"},
	{"qos", "q", "priority comes from the queue's policy (gpusched submit --priority)"},
	{"constraint", "C", "use --gres=gpu:TYPE:N or --gpus=TYPE:N to pick a GPU type"},
	{"nodelist", "w", "the scheduler places jobs"},
	{"exclude", "x", "the scheduler places jobs"},
	{"reservation", "", "bookings take the place of reservations"},
	{"wait-all-nodes", "", "a job's parts start together or not at all"},
	{"mail-user", "", "notifications go where your preferences say"},
	{"mem-per-gpu", "", "host memory is not reserved here"},
	{"open-mode", "", "output files are truncated"},
	{"comment", "", "comments are not kept"},
	{"licenses", "L", "licenses are not tracked"},
	{"hint", "", "CPU binding is not managed"},
	{"distribution", "m", "task distribution is not managed"},
	{"cpus-per-gpu", "", "CPUs are not reserved here"},
	{"tmp", "", "scratch space is not reserved here"},
	{"gpu-bind", "", "each job sees exactly its GPUs"},
	{"mincpus", "", "CPUs are not reserved here"},
	{"nice", "", "priority comes from the queue's policy (gpusched submit --priority)"},
	{"mem-bind", "", "memory binding is not managed"},
	{"cpu-freq", "", "CPU frequency is not managed"},
	{"gpu-freq", "", "GPU clocks are not managed"},
	{"threads-per-core", "", "CPUs are not reserved here"},
	{"cores-per-socket", "", "CPUs are not reserved here"},
	{"sockets-per-node", "", "CPUs are not reserved here"},
	{"ntasks-per-core", "", "CPUs are not reserved here"},
	{"ntasks-per-socket", "", "CPUs are not reserved here"},
	{"ntasks-per-gpu", "", "tasks are shaped by --ntasks and --ntasks-per-node"},
	{"gpus-per-socket", "", "GPUs are asked per job or per node"},
	{"time-min", "", "the time limit is --time"},
	{"propagate", "", "resource limits are not propagated"},
	{"profile", "", "profiling is not collected"},
	{"network", "", "the network is not managed"},
	{"switches", "", "the network is not managed"},
	{"deadline", "", "the time limit is --time"},
	{"cluster", "M", "there is one cluster"},
	{"clusters", "", "there is one cluster"},
	{"prefer", "", "use --gres=gpu:TYPE:N or --gpus=TYPE:N to pick a GPU type"},
	{"tres-per-task", "", "GPUs are asked with --gpus, --gres or --gpus-per-node"},
	{"container", "", "containers are not run by sbatch here"},
	{"input", "i", "jobs have no standard input"},
	{"uid", "", "jobs run as their submitter"},
	{"gid", "", "jobs run as their submitter"},
	{"core-spec", "S", "CPUs are not reserved here"},
	{"thread-spec", "", "CPUs are not reserved here"},
}

// notApplicableSwitches are Slurm's directives without a value that mean
// nothing here: accepted with one warning each.
var notApplicableSwitches = []notApplicableOption{
	{"no-kill", "k", "a multi-node job's parts end together"},
	{"oversubscribe", "s", "GPUs are never shared unless asked (--gpu-share)"},
	{"overcommit", "O", "CPUs are not reserved here"},
	{"contiguous", "", "the scheduler places jobs"},
	{"spread-job", "", "the scheduler places jobs"},
	{"get-user-env", "", "--export decides the job's environment"},
	{"verbose", "v", "sbatch says what it did"},
	{"use-min-nodes", "", "the node count is --nodes"},
	{"exact", "", "CPUs are not reserved here"},
	{"ignore-pbs", "", "#PBS lines are never read"},
}

// notApplicableWhy is why directive name (long) means nothing here.
func notApplicableWhy(name string) (string, bool) {
	for _, list := range [][]notApplicableOption{notApplicable, notApplicableSwitches} {
		for _, na := range list {
			if na.long == name {
				return na.why, true
			}
		}
	}
	return "", false
}

// sbatchFlagSet defines sbatch's options on o.
func sbatchFlagSet(o *sbatchOpts) *pflag.FlagSet {
	fs := pflag.NewFlagSet("sbatch", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SetInterspersed(false)
	fs.StringVarP(&o.name, "job-name", "J", "", "the job's name (default: the script's file name)")
	fs.StringVarP(&o.time, "time", "t", "", "time limit: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or 2h; 0: the policy's maximum")
	fs.StringVar(&o.gres, "gres", "", "gpu[:TYPE]:N, GPUs per node")
	fs.StringVarP(&o.gpus, "gpus", "G", "", "[TYPE:]N, GPUs for the whole job")
	fs.StringVar(&o.gpusPerNode, "gpus-per-node", "", "[TYPE:]N")
	fs.StringVar(&o.gpusPerTask, "gpus-per-task", "", "[TYPE:]N")
	fs.VarP((*nodeCount)(&o.nodes), "nodes", "N", "nodes: N, or MIN-MAX (MIN is taken)")
	fs.IntVarP(&o.ntasks, "ntasks", "n", 0, "tasks (SLURM_NTASKS)")
	fs.IntVar(&o.ntasksPerNode, "ntasks-per-node", 0, "tasks per node")
	fs.IntVarP(&o.cpusPerTask, "cpus-per-task", "c", 0, "CPUs per task (SLURM_CPUS_PER_TASK; not reserved)")
	fs.StringVar(&o.mem, "mem", "", "host memory per node (not reserved; SLURM_MEM_PER_NODE)")
	fs.StringVar(&o.memPerCPU, "mem-per-cpu", "", "host memory per CPU (not reserved)")
	fs.StringVarP(&o.array, "array", "a", "", "array of tasks: 0-99%8, 1,3,5-7, 0-15:4")
	fs.StringVarP(&o.dependency, "dependency", "d", "", "afterok:ID[:ID],afterany:ID,afternotok:ID,singleton")
	fs.StringVarP(&o.output, "output", "o", "", "stdout file on the node, relative to the working directory: %j %x %A %a %u %N %%")
	fs.StringVarP(&o.errorF, "error", "e", "", "stderr file (default: with stdout)")
	fs.StringVarP(&o.chdir, "chdir", "D", "", "working directory on the node (default: the current one)")
	fs.StringVar(&o.export, "export", "", "ALL (default), NONE, or [ALL,]VAR[=val],…")
	fs.StringVar(&o.mailType, "mail-type", "", "NONE, BEGIN, END, FAIL, ALL… (notifications follow your preferences)")
	fs.BoolVar(&o.requeue, "requeue", false, "requeue after a failure (retries)")
	fs.BoolVar(&o.noRequeue, "no-requeue", false, "never requeue")
	fs.StringVar(&o.exclusive, "exclusive", "", "whole nodes")
	fs.Lookup("exclusive").NoOptDefVal = "yes"
	fs.StringVarP(&o.begin, "begin", "b", "", "start no earlier (not supported: warns)")
	fs.StringVar(&o.wrap, "wrap", "", "a command line to run with /bin/sh instead of a script")
	fs.StringVar(&o.signal, "signal", "", "[B:]SIG[@SECONDS]: warning before the time limit (becomes the stop grace)")
	fs.BoolVar(&o.report.parsable, "parsable", false, "print only the job's id (an array's id), as scripts read it")
	fs.BoolVarP(&o.report.quiet, "quiet", "Q", false, "print nothing but errors")
	fs.BoolVarP(&o.report.wait, "wait", "W", false, "wait for the job (every task of an array) to end; exit with its exit code")
	for _, na := range notApplicable {
		name := na.long
		fs.VarP(&ignoredValue{o: o, name: name}, name, na.short, "accepted and ignored: "+na.why)
	}
	for _, na := range notApplicableSwitches {
		fs.VarP(&ignoredValue{o: o, name: na.long}, na.long, na.short, "accepted and ignored: "+na.why)
		fs.Lookup(na.long).NoOptDefVal = "yes"
	}
	fs.Lookup("wait-all-nodes").NoOptDefVal = "1"
	fs.Lookup("get-user-env").NoOptDefVal = "yes"
	return fs
}

// ignoredValue records that an ignored directive was given.
type ignoredValue struct {
	o    *sbatchOpts
	name string
	val  string
}

func (v *ignoredValue) String() string { return v.val }
func (v *ignoredValue) Type() string   { return "string" }
func (v *ignoredValue) Set(s string) error {
	v.val = s
	for _, n := range v.o.ignored {
		if n == v.name {
			return nil
		}
	}
	v.o.ignored = append(v.o.ignored, v.name)
	return nil
}

// knownOption reports whether a directive word names one of fs's options.
func knownOption(fs *pflag.FlagSet, word string) bool {
	if name, ok := strings.CutPrefix(word, "--"); ok {
		name, _, _ = strings.Cut(name, "=")
		return fs.Lookup(name) != nil
	}
	if short, ok := strings.CutPrefix(word, "-"); ok && short != "" {
		return fs.ShorthandLookup(short[:1]) != nil
	}
	return false
}

// parseDirectives applies a script's directives through fs (made by
// sbatchFlagSet, which resets its options: make it once); a line whose
// option is unknown is skipped with a warning.
func parseDirectives(fs *pflag.FlagSet, ds []directive) (warnings []string, err error) {
	for _, d := range ds {
		if !knownOption(fs, d.args[0]) {
			warnings = append(warnings, fmt.Sprintf("line %d: #SBATCH %s: not a directive sbatch knows here; ignored", d.line, d.args[0]))
			continue
		}
		if err := fs.Parse(d.args); err != nil {
			return nil, fmt.Errorf("line %d: #SBATCH %s: %w", d.line, strings.Join(d.args, " "), err)
		}
		if rest := fs.Args(); len(rest) > 0 {
			warnings = append(warnings, fmt.Sprintf("line %d: #SBATCH: %q ignored", d.line, strings.Join(rest, " ")))
		}
	}
	return warnings, nil
}

// nodeCount reads -N/--nodes: a count, or Slurm's MIN-MAX range, of which
// the minimum is taken.
type nodeCount int

func (n *nodeCount) String() string { return strconv.Itoa(int(*n)) }
func (n *nodeCount) Type() string   { return "N" }
func (n *nodeCount) Set(s string) error {
	lo, _, _ := strings.Cut(s, "-")
	v, err := strconv.Atoi(lo)
	if err != nil || v < 1 {
		return fmt.Errorf("want N or MIN-MAX, N at least 1")
	}
	*n = nodeCount(v)
	return nil
}
