// Command gpusched-server is GPUScheduler's full binary: the control plane
// (serve), schema migrations (migrate), the node agent (node), the admin
// commands (user, token), the simulator (sim), and the client commands of
// the small `gpusched` binary, which hands its server commands to this one.
package main

import (
	// Time zones (calview): the CLI shows times in TZ or the system's zone,
	// and knows every zone even where the system has no zoneinfo.
	_ "time/tzdata"

	"os"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/cli"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/steps"
)

// Build facts, set with -ldflags "-X main.version=… -X main.commit=… -X main.buildDate=…"
// by `make build` and `make release`.
var (
	version   = "dev"
	commit    = "unknown"
	buildDate = "unknown"
)

func main() {
	if steps.IsStep(os.Args[0]) { // a multi-node batch job's steps (the node agent links it so)
		os.Exit(steps.Main(os.Args[1:]))
	}
	cli.Main(newRootCmd())
}

// newRootCmd is the client's root command with the server commands.
func newRootCmd() *cobra.Command {
	nvml := "nvml: yes"
	if !gpu.NVMLCompiledIn {
		nvml = "nvml: no (built without cgo: real GPUs cannot be read; --fake-gpus only)"
	}
	root := cli.NewRoot(cli.Build{Version: version, Commit: commit, Date: buildDate, Facts: []string{nvml}})
	root.AddCommand(newServeCmd(), newMigrateCmd(), newNodeCmd(), newUserCmd(), newTokenCmd(), newSimCmd(), newDevCmd())
	return root
}
