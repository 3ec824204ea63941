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

	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Config tunes the background work.
type Config struct {
	// NodeDownAfter is how long a node may miss heartbeats before it is
	// marked down and its GPUs stop being offered.
	NodeDownAfter time.Duration
	// Workers is how many general jobs run at once in this process.
	Workers int
	// PassEvery is the safety-net period of scheduling passes; changes
	// trigger passes at once through the Kicker.
	PassEvery time.Duration
	// Scoring is the scoring model's configuration, for learned estimates,
	// steering and observations (zero: its defaults).
	Scoring scoring.Config
	// Retention is how long the usage history is kept (zero: models.DefaultRetention).
	Retention models.Retention
	// Notify tunes notification delivery.
	Notify NotifyConfig
}

// Deps are what workers need. River is set by NewClient.
type Deps struct {
	DB     *models.DB
	Logger *slog.Logger
	Now    func() time.Time
	Config Config
	// Executors are the executors this server runs jobs on; the
	// lifecycle uses them (the same map).
	Executors Executors
	// Lifecycle owns every job's life: every start, stop and end goes
	// through it. NewClient sets it over Executors.
	Lifecycle *models.Lifecycle
	River     *river.Client[pgx.Tx]
	// Snapshots keeps the pass's snapshot in memory between passes
	// (models.SnapshotCache); nil: every pass reads it whole.
	Snapshots *models.SnapshotCache
}

// NewClient builds the River client with every worker and periodic job
// registered, and sets d.River. Several replicas may run one each: River
// elects one leader for periodic jobs and spreads the rest.
func NewClient(d *Deps) (*river.Client[pgx.Tx], error) {
	if _, err := d.Config.scoringConfig(); err != nil {
		return nil, err
	}
	if d.Executors == nil {
		d.Executors = Executors{}
	}
	if d.Lifecycle == nil {
		d.Lifecycle = &models.Lifecycle{Executors: d.Executors}
	}
	if d.Snapshots == nil {
		d.Snapshots = models.NewSnapshotCache()
	}
	if d.Config.PassEvery <= 0 {
		d.Config.PassEvery = 30 * time.Second
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &NodeLivenessWorker{deps: d})
	river.AddWorker(workers, &SchedulePassWorker{deps: d})
	river.AddWorker(workers, &legacyDispatchWorker{deps: d})
	river.AddWorker(workers, &legacyStopWorker{deps: d})
	river.AddWorker(workers, &LeaseExpiryWorker{deps: d})
	river.AddWorker(workers, &TimeLimitWorker{deps: d})
	river.AddWorker(workers, &DependencySweepWorker{deps: d})
	river.AddWorker(workers, &HoldExpiryWorker{deps: d})
	river.AddWorker(workers, &ScoringObserveWorker{deps: d})
	// Ray dispatch (they do nothing until a RayExecutor is registered).
	river.AddWorker(workers, &RayDispatchWorker{deps: d})
	river.AddWorker(workers, &RaySyncWorker{deps: d})
	river.AddWorker(workers, &RayStopWorker{deps: d})
	river.AddWorker(workers, &TelemetryRollupWorker{deps: d})
	river.AddWorker(workers, &RetentionWorker{deps: d})
	// Notifications and idle reclaim.
	addNotifyWorkers(workers, d)
	river.AddWorker(workers, &InvariantSweepWorker{deps: d})

	client, err := river.NewClient(riverpgxv5.New(d.DB.Pool), &river.Config{
		Logger: d.Logger.With("component", "river"),
		Queues: map[string]river.QueueConfig{
			river.QueueDefault: {MaxWorkers: max(d.Config.Workers, 1)},
			QueueScheduler:     {MaxWorkers: 1},
			models.QueueNotify: {MaxWorkers: 8, FetchPollInterval: 100 * time.Millisecond}, // deliveries
		},
		// Passes are latency-sensitive: pick new jobs up quickly.
		FetchCooldown: 5 * time.Millisecond,
		Workers:       workers,
		PeriodicJobs:  periodicJobs(d.Config),
		JobTimeout:    time.Minute,
		// A job left running by a replica that died is retried this long
		// after it began: no job runs past JobTimeout, so it cannot be live.
		RescueStuckJobsAfter: time.Minute + 15*time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: new river client: %w", err)
	}
	d.River = client
	return client, nil
}

// NewInserter builds an insert-only River client: it runs no worker and
// inserts jobs only in a caller's transaction. The composition root opens
// the database with it (models.Open), so the River jobs a state change
// causes commit with the change in every process, whether or not it runs
// workers.
func NewInserter() (*river.Client[pgx.Tx], error) {
	client, err := river.NewClient(riverpgxv5.New(nil), &river.Config{})
	if err != nil {
		return nil, fmt.Errorf("jobs: new river inserter: %w", err)
	}
	return client, nil
}

func periodicJobs(cfg Config) []*river.PeriodicJob {
	every := livenessEvery(cfg)
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(every),
			func() (river.JobArgs, *river.InsertOpts) { return NodeLivenessArgs{}, nil },
			&river.PeriodicJobOpts{ID: "node_liveness", RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(cfg.PassEvery),
			func() (river.JobArgs, *river.InsertOpts) { return SchedulePassArgs{Reason: "periodic"}, nil },
			&river.PeriodicJobOpts{ID: "schedule_pass", RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(10*time.Second),
			func() (river.JobArgs, *river.InsertOpts) { return LeaseExpiryArgs{}, nil },
			&river.PeriodicJobOpts{ID: "lease_expiry", RunOnStart: true}),
		holdExpiryPeriodic(),
		scoringObservePeriodic(),
		telemetryRollupPeriodic(),
		retentionPeriodic(),
		notifySweepPeriodic(), idleReclaimPeriodic(cfg), notifyTimersPeriodic(),
		invariantSweepPeriodic(), timeLimitPeriodic(), dependencySweepPeriodic(),
	}
}
