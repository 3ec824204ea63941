// Package steps runs a multi-node Slurm batch job as Slurm does: the
// batch script runs once, on the job's first node, under a coordinator
// ("gpusched-step batch SCRIPT"); every other node runs a worker
// ("gpusched-step worker") that connects to the coordinator and runs the
// tasks an srun of the script asks of its node ("gpusched-step srun NTASKS
// NODES CMD…", which the srun shell command hands a multi-node step to),
// streaming their output back into the srun's (so into the batch script's
// -o file) and their exit statuses. Peers prove they know the job's secret
// (an HMAC of a fresh nonce); the secret itself is read from a file only
// the job's user may read.
//
// The node agent puts the program on the job's PATH as gpusched-step (a
// link to its own binary) with GPUSCHED_STEP_ADDR (host:port of the
// coordinator), GPUSCHED_STEP_KEY (the secret's file) and GPUSCHED_STEP_BIN
// (the program's path on this node) in the job's environment.
package steps

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Name is the program's name on the job's PATH: a binary run under this
// name (argv[0]) is the step program (see Main).
const Name = "gpusched-step"

// The variables the node agent sets for the step program.
const (
	EnvAddr = "GPUSCHED_STEP_ADDR"
	EnvKey  = "GPUSCHED_STEP_KEY"
	EnvBin  = "GPUSCHED_STEP_BIN"
	// EnvWait bounds, in seconds, how long a worker tries to reach the
	// coordinator and how long the coordinator waits for the workers to
	// join (default 120).
	EnvWait = "GPUSCHED_STEP_WAIT"
)

// IsStep reports whether a program started as argv0 is the step program.
func IsStep(argv0 string) bool { return filepath.Base(argv0) == Name }

// Main runs the step program with its arguments (without argv[0]) and
// returns its exit status.
func Main(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, Name+": say batch SCRIPT, worker, or srun NTASKS NODES CMD…")
		return 2
	}
	cfg, err := readConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, Name+":", err)
		return 1
	}
	switch args[0] {
	case "batch":
		if len(args) != 2 {
			break
		}
		return runBatch(cfg, args[1])
	case "worker":
		return runWorker(cfg)
	case "srun":
		if len(args) < 4 {
			break
		}
		return runSrun(cfg, args[1], args[2], args[3:])
	}
	fmt.Fprintln(os.Stderr, Name+": say batch SCRIPT, worker, or srun NTASKS NODES CMD…")
	return 2
}

// config is what the node agent told the step program.
type config struct {
	addr   string
	secret []byte
	bin    string
	wait   time.Duration
	node   int // SLURM_NODEID
	nodes  int // SLURM_NNODES
}

func readConfig() (config, error) {
	c := config{addr: os.Getenv(EnvAddr), bin: os.Getenv(EnvBin), wait: 120 * time.Second}
	if c.addr == "" {
		return c, fmt.Errorf("%s is not set: this job is not a multi-node batch job", EnvAddr)
	}
	key, err := os.ReadFile(os.Getenv(EnvKey))
	if err != nil {
		return c, fmt.Errorf("the job's step secret: %w", err)
	}
	c.secret = []byte(strings.TrimSpace(string(key)))
	if s, err := strconv.Atoi(os.Getenv(EnvWait)); err == nil && s > 0 {
		c.wait = time.Duration(s) * time.Second
	}
	c.node, _ = strconv.Atoi(os.Getenv("SLURM_NODEID"))
	c.nodes, _ = strconv.Atoi(os.Getenv("SLURM_NNODES"))
	return c, nil
}
