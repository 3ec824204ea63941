// Package cli holds gpusched's client commands (submit, queue, cancel, run,
// logs, login, book, bookings, healthcheck, version), the root command both
// binaries share, and the hand-over of the server commands from the small
// `gpusched` client to the full `gpusched-server` binary. It links only what
// the client commands need, so that one call of the client starts fast: no
// database driver, job queue, web framework or metrics.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// ExitCode is an error that ends gpusched with a given status.
type ExitCode int

func (e ExitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// NewRoot returns the `gpusched` root command with the client commands; the
// binary adds its own (the server commands, or their hand-over).
func NewRoot(b Build) *cobra.Command {
	root := &cobra.Command{
		Use:           "gpusched",
		Short:         "GPUScheduler: share a team's GPUs without a spreadsheet",
		Version:       b.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("gpusched {{.Version}}\n")
	root.AddCommand(newSubmitCmd(), newQueueCmd(), newCancelCmd(), newRunCmd(), newLogsCmd(), newLoginCmd(),
		newBookCmd(), newBookingsCmd(), // bookings calendar
		newVersionCmd(b), newHealthcheckCmd()) // operations: container health probe
	return root
}

// Main runs root with the process's arguments until SIGINT or SIGTERM and
// exits with its status: an ExitCode's, 1 after printing any other error.
func Main(root *cobra.Command) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := root.ExecuteContext(ctx)
	stop()
	var code ExitCode
	if errors.As(err, &code) {
		os.Exit(int(code))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpusched:", err)
		os.Exit(1)
	}
}
