// Package cli holds gpusched's client commands (submit, sbatch, queue,
// history, cancel, squeue, scancel, sacct, renew, run, notebook, session,
// logs, login, book, bookings, usage, healthcheck, version, mig-layout), the root command both
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

// NewRoot returns the `gpusched` root command with every client command; the
// binary adds its own (the server commands, or their hand-over).
func NewRoot(b Build) *cobra.Command { return NewRootFor(b, nil) }

// NewRootFor returns the root command for running args. When args[0] names a
// client command, the root holds that command alone and no completion
// command: one call then builds one command's flags, not every command's
// (about a tenth of a submission's CPU time). Otherwise (no arguments, a flag
// first, help, completion, a server command, a misspelling) it holds every
// client command, so that help, suggestions and completion see them all.
func NewRootFor(b Build, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:           "gpusched",
		Short:         "GPUScheduler: share a team's GPUs without a spreadsheet",
		Version:       b.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("gpusched {{.Version}}\n")
	cmds := clientCommands(b)
	if len(args) > 0 {
		for _, c := range cmds {
			if c.name == args[0] {
				root.CompletionOptions.DisableDefaultCmd = true
				root.AddCommand(c.build())
				return root
			}
		}
	}
	for _, c := range cmds {
		root.AddCommand(c.build())
	}
	return root
}

// clientCommand is a client command's name and constructor.
type clientCommand struct {
	name  string
	build func() *cobra.Command
}

// clientCommands lists the client commands in the order help shows them.
func clientCommands(b Build) []clientCommand {
	return []clientCommand{
		{"submit", func() *cobra.Command { return oneShot(newSubmitCmd()) }},
		{"sbatch", func() *cobra.Command { return oneShot(newSbatchCmd()) }},
		{"queue", func() *cobra.Command { return oneShot(newQueueCmd()) }},
		{"history", newHistoryCmd}, // pages: may send several requests
		{"cancel", func() *cobra.Command { return oneShot(newCancelCmd()) }},
		// Slurm's names, in Slurm's shape.
		{"squeue", func() *cobra.Command { return oneShot(newSqueueCmd()) }},
		{"scancel", func() *cobra.Command { return oneShot(newScancelCmd()) }},
		{"sacct", func() *cobra.Command { return oneShot(newSacctCmd()) }},
		{"renew", func() *cobra.Command { return oneShot(newRenewCmd()) }},
		{"run", newRunCmd}, {"logs", newLogsCmd}, {"login", newLoginCmd},
		{"book", func() *cobra.Command { return oneShot(newBookCmd()) }}, {"bookings", newBookingsCmd}, // bookings calendar
		{"usage", func() *cobra.Command { return oneShot(newUsageCmd()) }},
		{"version", func() *cobra.Command { return oneShot(newVersionCmd(b)) }},
		{"healthcheck", newHealthcheckCmd},                       // container health probe
		{"notebook", newNotebookCmd}, {"session", newSessionCmd}, // interactive sessions
		{"mig-layout", func() *cobra.Command { return oneShot(newMIGLayoutCmd()) }}, // admins: a node's MIG layout
	}
}

// annotationOneShot marks a command that sends one request and ends: it
// installs no signal handler (which would cost the runtime a thread, a
// measurable part of one call), so SIGINT and SIGTERM end it at once as they
// end any small program. Every other command, the servers' included, sees
// its context cancelled on them and ends cleanly.
const annotationOneShot = "gpusched/one-shot"

// oneShot marks cmd with annotationOneShot.
func oneShot(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[annotationOneShot] = "true"
	return cmd
}

// Main runs root with the process's arguments and exits with its status: an
// ExitCode's, 1 after printing any other error. Unless the command is one
// shot, its context ends on SIGINT or SIGTERM.
func Main(root *cobra.Command) {
	ctx := context.Background()
	if c, _, err := root.Find(os.Args[1:]); err != nil || c.Annotations[annotationOneShot] == "" {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	err := root.ExecuteContext(ctx)
	var code ExitCode
	if errors.As(err, &code) {
		os.Exit(int(code))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpusched:", err)
		os.Exit(1)
	}
}
