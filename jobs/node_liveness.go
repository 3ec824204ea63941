package jobs

import (
	"context"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// NodeLivenessArgs asks for one liveness sweep.
type NodeLivenessArgs struct{}

// Kind is the River job kind.
func (NodeLivenessArgs) Kind() string { return "node_liveness" }

// InsertOpts makes sweeps unique while one is waiting: a burst of inserts
// costs one sweep.
func (NodeLivenessArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: time.Second}}
}

// NodeLivenessWorker marks nodes down when their heartbeats stop, and tells
// every replica (pages, scheduler) through NOTIFY in the same transaction.
type NodeLivenessWorker struct {
	river.WorkerDefaults[NodeLivenessArgs]
	deps *Deps
}

// Work runs one sweep.
func (w *NodeLivenessWorker) Work(ctx context.Context, _ *river.Job[NodeLivenessArgs]) error {
	d := *w.deps
	return d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		// The clock is read once the database answered: a sweep that waited
		// out an outage must see that outage (outage grace).
		now, grace, err := livenessGrace(ctx, tx, d)
		if err != nil || grace {
			return err
		}
		return sweepNodesTx(ctx, tx, d, now)
	})
}

// SweepNodes marks stale nodes down in one transaction.
func SweepNodes(ctx context.Context, d Deps) error {
	return d.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		return sweepNodesTx(ctx, tx, d, d.Now())
	})
}

// sweepNodesTx marks the nodes stale at now down in tx.
func sweepNodesTx(ctx context.Context, tx *models.Tx, d Deps, now time.Time) error {
	down, err := models.MarkStaleNodesDown(ctx, tx, now, d.Config.NodeDownAfter)
	if err != nil || len(down) == 0 {
		return err
	}
	d.Logger.Warn("nodes marked down: no heartbeat", "nodes", down, "after", d.Config.NodeDownAfter)
	if n, err := LoseNodeJobs(ctx, d.Lifecycle, tx, down, now); err != nil {
		return err
	} else if n > 0 {
		d.Logger.Warn("jobs of down nodes lost", "nodes", down, "jobs", n)
	}
	for _, name := range down { // notifications
		if err := models.EmitNodeEvent(ctx, tx, models.EventNodeDown, name, now); err != nil {
			return err
		}
	}
	payload := strings.Join(down, ",")
	if err := models.Signal(ctx, tx, models.ChannelNodes, payload); err != nil {
		return err
	}
	return models.Signal(ctx, tx, models.ChannelGPUs, "down:"+payload)
}
