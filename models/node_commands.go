package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Kinds and states of node commands.
const (
	CommandStart    = "start"
	CommandStop     = "stop"
	CommandPending  = "pending"  // waiting for the agent's answer
	CommandDone     = "done"     // the agent answered
	CommandCanceled = "canceled" // withdrawn before the agent took it
)

// NodeCommand is an order for a node agent (start or stop one job's
// process). The agent long-polls its pending commands and answers each by
// id, so delivering one twice is harmless.
type NodeCommand struct {
	bun.BaseModel `bun:"table:node_commands,alias:nc"`

	ID          int64           `bun:"id,pk,autoincrement" json:"id"`
	NodeID      int64           `bun:"node_id,notnull" json:"node_id"`
	JobID       int64           `bun:"job_id,notnull" json:"job_id"`
	Kind        string          `bun:"kind,notnull" json:"kind"`
	Payload     json.RawMessage `bun:"payload,type:jsonb,notnull" json:"payload"`
	State       string          `bun:"state,notnull" json:"state"`
	Result      json.RawMessage `bun:"result,type:jsonb,nullzero" json:"result,omitempty"`
	CreatedAt   time.Time       `bun:"created_at,notnull" json:"created_at"`
	DeliveredAt *time.Time      `bun:"delivered_at" json:"delivered_at,omitempty"`
	DoneAt      *time.Time      `bun:"done_at" json:"done_at,omitempty"`
}

// CommandSignal is the payload prefix on ChannelGPUs that wakes a node's
// long-poll: "cmd:<node id>". The gpus channel does not trigger passes.
const CommandSignal = "cmd:"

// EnqueueCommand queues a command for node and wakes its long-poll when the
// transaction commits.
func EnqueueCommand(ctx context.Context, db bun.IDB, nodeID, jobID int64, kind string, payload any, now time.Time) (*NodeCommand, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("models: %s command for job %d: %w", kind, jobID, err)
	}
	c := &NodeCommand{NodeID: nodeID, JobID: jobID, Kind: kind, Payload: raw, State: CommandPending, CreatedAt: now}
	if _, err := db.NewInsert().Model(c).Returning("*").Exec(ctx); err != nil {
		return nil, fmt.Errorf("models: %s command for job %d on node %d: %w", kind, jobID, nodeID, err)
	}
	return c, Signal(ctx, db, ChannelGPUs, fmt.Sprintf("%s%d", CommandSignal, nodeID))
}

// PendingCommands returns node's unanswered commands, oldest first, and
// stamps the first delivery of each.
func PendingCommands(ctx context.Context, db bun.IDB, nodeID int64, now time.Time) ([]NodeCommand, error) {
	var out []NodeCommand
	err := db.NewUpdate().Model(&out).Set("delivered_at = coalesce(delivered_at, ?)", now).
		Where("node_id = ? AND state = ?", nodeID, CommandPending).Returning("*").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: pending commands of node %d: %w", nodeID, err)
	}
	// UPDATE … RETURNING has no order.
	for i := 1; i < len(out); i++ {
		for k := i; k > 0 && out[k].ID < out[k-1].ID; k-- {
			out[k], out[k-1] = out[k-1], out[k]
		}
	}
	return out, nil
}

// LockCommand returns node's command id, locked for update.
func LockCommand(ctx context.Context, db bun.IDB, nodeID, id int64) (*NodeCommand, error) {
	c := new(NodeCommand)
	err := db.NewSelect().Model(c).Where("id = ? AND node_id = ?", id, nodeID).For("UPDATE").Scan(ctx)
	return c, notFound(err, fmt.Sprintf("command %d of node %d", id, nodeID))
}

// FinishCommand records a pending command's result; a command already
// answered or withdrawn is left as it is. It reports whether it changed.
func FinishCommand(ctx context.Context, db bun.IDB, c *NodeCommand, state string, result any, now time.Time) (bool, error) {
	if c.State != CommandPending {
		return false, nil
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return false, fmt.Errorf("models: result of command %d: %w", c.ID, err)
	}
	_, err = db.NewUpdate().Model(c).Set("state = ?", state).Set("result = ?", string(raw)).Set("done_at = ?", now).
		WherePK().Returning("*").Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("models: finish command %d: %w", c.ID, err)
	}
	return true, nil
}

// LatestCommand returns job's newest command of kind (of a multi-node
// run, its first part's), or ErrNotFound.
func LatestCommand(ctx context.Context, db bun.IDB, jobID int64, kind string) (*NodeCommand, error) {
	c := new(NodeCommand)
	err := db.NewSelect().Model(c).Where("job_id = ? AND kind = ?", jobID, kind).Where(partRank + " = 0").OrderExpr("id DESC").Limit(1).Scan(ctx)
	return c, notFound(err, fmt.Sprintf("%s command of job %d", kind, jobID))
}

// JobNode returns the node whose GPUs job holds now, or ErrNotFound.
func JobNode(ctx context.Context, db bun.IDB, jobID int64) (int64, error) {
	var id int64
	err := db.NewRaw(`SELECT g.node_id FROM allocations a JOIN gpus g ON g.id = a.gpu_id
WHERE a.job_id = ? AND a.released_at IS NULL ORDER BY g.node_id LIMIT 1`, jobID).Scan(ctx, &id)
	return id, notFound(err, fmt.Sprintf("node of job %d", jobID))
}

// GetCommand returns command id, or ErrNotFound.
func GetCommand(ctx context.Context, db bun.IDB, id int64) (*NodeCommand, error) {
	c := new(NodeCommand)
	err := db.NewSelect().Model(c).Where("id = ?", id).Scan(ctx)
	return c, notFound(err, fmt.Sprintf("command %d", id))
}
