// Command gpusched-agent is GPUScheduler's client agent: it watches a user's
// logs, files, processes and commands, asks the user's own LLM whether GPU
// work is about to start, and asks the control plane to hold GPUs just in
// time. Log lines and file contents never leave the machine except to the
// configured LLM. See internal/clientagent.
//
//	gpusched-agent run [--config FILE] [--dry-run]
//	gpusched-agent check [--config FILE]
//	gpusched-agent login [--llm NAME]
//	gpusched-agent version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time (-ldflags "-X main.version=…").
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "gpusched-agent:", err)
		stop()
		os.Exit(1)
	}
}

const usage = `usage:
  gpusched-agent run [--config FILE] [--dry-run] [--debug]   watch and ask for GPUs just in time
  gpusched-agent check [--config FILE]                       validate the config, show what is watched
  gpusched-agent login [--llm NAME]                          store the API token and LLM key in the OS keyring
  gpusched-agent version`

// run dispatches a command line; main's I/O and environment are passed in.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet("gpusched-agent "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "config file (default: config.yaml in the user's config folder)")
	dryRun := fs.Bool("dry-run", false, "log what would be asked for, ask for nothing")
	debug := fs.Bool("debug", false, "log every decision")
	llmName := fs.String("llm", "openai", "login: the keyring name of the LLM key, as in keyring(NAME)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	level := slog.LevelInfo
	if *debug {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	switch args[0] {
	case "run":
		return runAgent(ctx, *config, *dryRun, logger, stdout, getenv)
	case "check":
		return check(*config, stdout, getenv)
	case "login":
		return login(stdin, stdout, *llmName)
	case "version":
		fmt.Fprintln(stdout, "gpusched-agent", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}
