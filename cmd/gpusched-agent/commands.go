package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"

	"github.com/gpuscheduler/gpuscheduler/internal/clientagent"
)

// loadConfig reads the config (the default path when none is given) and
// prints its warnings.
func loadConfig(path string, getenv func(string) string, warn func(string)) (*clientagent.Config, error) {
	if path == "" {
		def, err := clientagent.DefaultConfigPath()
		if err != nil {
			return nil, err
		}
		path = def
	}
	cfg, warnings, err := clientagent.Load(path, clientagent.Secrets{Getenv: getenv, Keyring: clientagent.KeyringGet})
	for _, w := range warnings {
		warn(w)
	}
	return cfg, err
}

func runAgent(ctx context.Context, path string, dryRun bool, logger *slog.Logger, out io.Writer, getenv func(string) string) error {
	cfg, err := loadConfig(path, getenv, func(w string) { logger.Warn(w) })
	if err != nil {
		return err
	}
	return clientagent.Run(ctx, clientagent.Options{Config: cfg, DryRun: dryRun, Logger: logger, Out: out, Version: version})
}

func check(path string, out io.Writer, getenv func(string) string) error {
	cfg, err := loadConfig(path, getenv, func(w string) { fmt.Fprintln(out, "warning:", w) })
	if err != nil {
		return err
	}
	lines, warnings := clientagent.Describe(cfg)
	for _, l := range lines {
		fmt.Fprintln(out, l)
	}
	for _, w := range warnings {
		fmt.Fprintln(out, "warning:", w)
	}
	fmt.Fprintf(out, "%s is valid\n", cfg.Path)
	return nil
}

func login(stdin io.Reader, out io.Writer, llmName string) error {
	rd := bufio.NewReader(stdin)
	ask := func(prompt string) (string, error) {
		fmt.Fprint(out, prompt)
		if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(out)
			return string(b), err
		}
		line, err := rd.ReadString('\n')
		if err == io.EOF && line != "" {
			err = nil
		}
		return line, err
	}
	return clientagent.Login(out, ask, llmName)
}
