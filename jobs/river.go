// Package jobs holds GPUScheduler's River workers and periodic jobs, one per
// file, and builds the River client that runs them in `gpusched serve`.
package jobs

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// Config tunes the background work.
type Config struct {
	// NodeDownAfter is how long a node may miss heartbeats before it is
	// marked down and its GPUs stop being offered.
	NodeDownAfter time.Duration
	// Workers is how many jobs run at once in this process.
	Workers int
}

// Deps are what workers need.
type Deps struct {
	DB     *models.DB
	Logger *slog.Logger
	Now    func() time.Time
	Config Config
}

// NewClient builds the River client with every worker and periodic job
// registered. Several replicas may run one each: River elects one leader for
// periodic jobs and spreads the rest.
func NewClient(d Deps) (*river.Client[pgx.Tx], error) {
	workers := river.NewWorkers()
	river.AddWorker(workers, &NodeLivenessWorker{deps: d})

	n := max(d.Config.Workers, 1)
	client, err := river.NewClient(riverpgxv5.New(d.DB.Pool), &river.Config{
		Logger:       d.Logger.With("component", "river"),
		Queues:       map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: n}},
		Workers:      workers,
		PeriodicJobs: periodicJobs(d.Config),
		JobTimeout:   time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: new river client: %w", err)
	}
	return client, nil
}

func periodicJobs(cfg Config) []*river.PeriodicJob {
	every := max(cfg.NodeDownAfter/3, time.Second)
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(every),
			func() (river.JobArgs, *river.InsertOpts) { return NodeLivenessArgs{}, nil },
			&river.PeriodicJobOpts{ID: "node_liveness", RunOnStart: true}),
	}
}
