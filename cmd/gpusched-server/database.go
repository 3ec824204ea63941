package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/gpuscheduler/gpuscheduler/internal/pgembed"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/migrations"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// embeddedDatabase is the name of the database in the embedded server.
const embeddedDatabase = "gpusched"

// database is an open database and how to let go of it.
type database struct {
	*models.DB
	embedded *pgembed.Server // nil unless this process started it
	logger   *slog.Logger
}

// openDatabase connects to cfg.DatabaseURL; without one it uses the embedded
// server in cfg.DataDir: the running one (the dev server's, so a second
// terminal can run admin commands) or one it starts and later stops.
func openDatabase(ctx context.Context, cfg Config, logger *slog.Logger, migrate bool) (*database, error) {
	url := cfg.DatabaseURL
	d := &database{logger: logger}
	if url == "" {
		dir := filepath.Join(cfg.DataDir, "postgres")
		if running, ok := pgembed.Running(dir, embeddedDatabase); ok {
			url = running
			logger.Debug("using the running embedded PostgreSQL", "dir", dir)
		} else {
			srv, err := pgembed.Start(ctx, pgembed.Options{DataDir: dir, Database: embeddedDatabase, Logger: logger})
			if err != nil {
				if errors.Is(err, pgembed.ErrNoBinaries) {
					return nil, pgembed.ErrNoBinaries
				}
				return nil, fmt.Errorf("no DATABASE_URL set, and the embedded PostgreSQL did not start: %w", err)
			}
			d.embedded, url = srv, srv.URL()
		}
	}
	inserter, err := jobs.NewInserter()
	if err != nil {
		d.close(logger)
		return nil, err
	}
	db, err := models.Open(ctx, url, int32(cfg.DBMaxConns), inserter)
	if err != nil {
		d.close(logger)
		return nil, err
	}
	d.DB = db
	if migrate {
		if err := migrations.New(db.Pool, logger).Up(ctx); err != nil {
			d.close(logger)
			return nil, err
		}
	}
	return d, nil
}

// close closes the pool and stops the embedded server if this process started it.
func (d *database) close(logger *slog.Logger) {
	if d.DB != nil {
		d.DB.Close()
	}
	if d.embedded != nil {
		if err := d.embedded.Stop(context.Background()); err != nil {
			logger.Error("could not stop the embedded PostgreSQL", "err", err)
		}
	}
}
