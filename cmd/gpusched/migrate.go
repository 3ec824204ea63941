package main

import (
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
			cfg, logger, err := commandSetup(cmd)
			if err != nil {
				return err
			}
			db, err := openDatabase(cmd.Context(), cfg, logger, true)
			if err != nil {
				return err
			}
			defer db.close(logger)
			applied, riverOK, err := migrations.New(db.Pool, logger).Status(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "schema at version %d (latest %d); River current: %t\n", applied, migrations.Latest(), riverOK)
			return nil
		},
	}
	var steps int
	var river bool
	down := &cobra.Command{
		Use:   "down",
		Short: "Roll back the newest schema steps",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, logger, err := commandSetup(cmd)
			if err != nil {
				return err
			}
			db, err := openDatabase(cmd.Context(), cfg, logger, false)
			if err != nil {
				return err
			}
			defer db.close(logger)
			return migrations.New(db.Pool, logger).Down(cmd.Context(), steps, river)
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
	return cfg, newLogger(os.Stderr, level, cfg.LogFormat), nil
}
