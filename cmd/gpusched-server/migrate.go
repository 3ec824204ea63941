package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/migrations"
)

func newMigrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the database schema (ours and River's); serve does this at start too",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDB(cmd, func(ctx context.Context, db *database) error {
				applied, riverOK, err := migrations.New(db.Pool, db.logger).Status(ctx)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "schema at version %d (latest %d); River current: %t\n", applied, migrations.Latest(), riverOK)
				return err
			})
		},
	}
	var steps int
	var river bool
	down := &cobra.Command{
		Use:   "down",
		Short: "Roll back the newest schema steps",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withDatabase(cmd, false, func(ctx context.Context, db *database) error {
				return migrations.New(db.Pool, db.logger).Down(ctx, steps, river)
			})
		},
	}
	down.Flags().IntVar(&steps, "steps", 1, "how many steps to roll back")
	down.Flags().BoolVar(&river, "river", false, "also remove River's tables")
	cmd.AddCommand(down)
	return cmd
}

// commandSetup reads the configuration and builds the logger (on stderr, so
// commands can print only their result on stdout).
func commandSetup(cmd *cobra.Command) (Config, *slog.Logger, error) {
	cfg, err := loadConfig(cmd.Flags(), os.Getenv)
	if err != nil {
		return cfg, nil, err
	}
	level := cfg.LogLevel
	if cmd.Name() != "serve" && level == "info" {
		level = "warn"
	}
	format := cfg.LogFormat
	if cfg.Dev && format == "auto" {
		format = "text" // --dev: people read the log; production's stays JSON
	}
	return cfg, newLogger(os.Stderr, level, format, cfg.Dev), nil
}
