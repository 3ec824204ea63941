// Command gpusched is GPUScheduler's command line for users and scripts:
// submit, queue, cancel, renew, run, logs, login, book, bookings, healthcheck and
// version. It links only the client (internal/cli, whose requests go
// through internal/lighthttp rather than net/http), so that one call starts
// in a few milliseconds; the server commands (serve, migrate, node, user,
// token, sim) run the full gpusched-server binary in its place.
package main

import (
	"os"
	"runtime"

	// Time zones (calview): the CLI shows times in TZ or the system's zone,
	// and knows every zone even where the system has no zoneinfo.
	_ "time/tzdata"

	"github.com/gpuscheduler/gpuscheduler/internal/cli"
)

// Build facts, set with -ldflags "-X main.version=… -X main.commit=… -X main.buildDate=…"
// by `make build` and `make release`.
var (
	version   = "dev"
	commit    = "unknown"
	buildDate = "unknown"
)

func main() {
	// One P: a command waits on one connection at a time, and with more Ps
	// the runtime starts and wakes spare threads for its few goroutines
	// (measured: a third of a submission's CPU time on 2 cores).
	runtime.GOMAXPROCS(1)
	root := cli.NewRootFor(cli.Build{Version: version, Commit: commit, Date: buildDate}, os.Args[1:])
	root.AddCommand(cli.HandOvers()...)
	cli.Main(root)
}
