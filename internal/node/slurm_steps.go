package node

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/steps"
)

// A multi-node batch job (sbatch) runs as Slurm runs it: its script once,
// on the first node, under the steps' coordinator, and on every other node
// a worker that runs the tasks the script's sruns ask of it (see package
// steps). A multi-node job with a plain command runs it on every node.

// batchSteps reports whether s is a part of a multi-node batch job whose
// script runs once, with steps.
func batchSteps(s *api.StartJob) bool {
	p := s.Part
	return p != nil && len(p.Nodes) > 1 && p.StepSecret != "" && p.StepPort > 0 && isBatch(s.Env)
}

// isBatch reports whether a job's environment is a batch script's, as
// sbatch submits it (it always names the output file).
func isBatch(env map[string]string) bool {
	return env["GPUSCHED_STDOUT"] != ""
}

// withSteps is s run with steps: the first part's command runs its script
// under the coordinator, the others' a worker, with the step program
// linked into bin as gpusched-step and the job's secret in a file only
// who may read.
func withSteps(files runFiles, id int64, s *api.StartJob, who identity, program, bin string) (*api.StartJob, error) {
	if program == "" {
		var err error
		if program, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("node: the step program: %w", err)
		}
	}
	key := files.key(id)
	if err := os.WriteFile(key, []byte(s.Part.StepSecret), 0o600); err != nil {
		return nil, fmt.Errorf("node: step secret of run %d: %w", id, err)
	}
	if who.cred != nil {
		if err := os.Chown(key, who.uid, who.gid); err != nil {
			return nil, fmt.Errorf("node: step secret of run %d: %w", id, err)
		}
	}
	link := filepath.Join(bin, steps.Name)
	if err := os.Remove(link); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("node: link the step program: %w", err)
	}
	if err := os.Symlink(program, link); err != nil {
		return nil, fmt.Errorf("node: link the step program: %w", err)
	}
	c := *s
	c.Env = maps.Clone(s.Env)
	c.Env[steps.EnvAddr] = net.JoinHostPort(s.Part.MasterAddr, strconv.Itoa(s.Part.StepPort))
	c.Env[steps.EnvKey] = key
	c.Env[steps.EnvBin] = link
	if s.Part.Rank == 0 {
		c.Command = "exec " + shellQuote(link) + " batch " + shellQuote(s.Command)
	} else {
		c.Command = "exec " + shellQuote(link) + " worker"
	}
	return &c, nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
