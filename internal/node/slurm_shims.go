package node

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// The Slurm commands a batch script calls inside its job, as small shell
// scripts on the job's PATH (a folder of its own per run): srun runs its
// command once per task of the step on this node, and, in a multi-node
// batch job (whose script runs once, on the first node), hands a step on
// several nodes to gpusched-step (slurm_steps.go); scontrol show hostnames
// expands a node list.
var (
	//go:embed shims/srun
	srunShim []byte
	//go:embed shims/scontrol
	scontrolShim []byte
)

// writeShims writes srun and scontrol into dir, which every job user may
// read, and returns it.
func writeShims(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("node: Slurm commands folder: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // past the umask
		return "", fmt.Errorf("node: Slurm commands folder: %w", err)
	}
	for name, body := range map[string][]byte{"srun": srunShim, "scontrol": scontrolShim} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o755); err != nil {
			return "", fmt.Errorf("node: write %s: %w", name, err)
		}
		if err := os.Chmod(p, 0o755); err != nil {
			return "", fmt.Errorf("node: write %s: %w", name, err)
		}
	}
	return dir, nil
}
