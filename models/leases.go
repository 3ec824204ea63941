package models

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// NodeLeases returns node nodeID's live leases (waiting or granted), those
// made through its agent's /acquire, oldest first: what the agent finds
// when it starts, to adopt or end.
func NodeLeases(ctx context.Context, db bun.IDB, nodeID int64) ([]Job, error) {
	var out []Job
	err := db.NewSelect().Model(&out).Where("node_id = ?", nodeID).Where("executor = ?", ExecutorLease).
		Where("state IN (?)", bun.In([]string{JobQueued, JobScheduled, JobAllocating, JobRunning})).
		OrderExpr("id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: leases of node %d: %w", nodeID, err)
	}
	return out, nil
}
