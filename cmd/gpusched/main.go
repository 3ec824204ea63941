// Command gpusched is GPUScheduler's one binary: the control plane (serve),
// schema migrations (migrate), and the admin commands (user, token, version).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	// Time zones (calview): the CLI shows times in TZ or the system's zone,
	// and knows every zone even where the system has no zoneinfo.
	_ "time/tzdata"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	var code exitCode
	if errors.As(err, &code) {
		os.Exit(int(code))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpusched:", err)
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "gpusched",
		Short:         "GPUScheduler: share a team's GPUs without a spreadsheet",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newServeCmd(), newMigrateCmd(), newNodeCmd(), newVersionCmd(), newUserCmd(), newTokenCmd(), newSimCmd(), newDevCmd(),
		newSubmitCmd(), newQueueCmd(), newCancelCmd(), newRunCmd(), newLogsCmd(), newLoginCmd(),
		newBookCmd(), newBookingsCmd()) // bookings calendar
	root.AddCommand(newHealthcheckCmd()) // operations: container health probe
	return root
}
