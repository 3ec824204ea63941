package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// A job placed on GPUs of several nodes runs as one part per node, each
// started by a start command of its own whose payload says which part it
// is (api.JobPart). The run is named by its first part's start command
// (the job's start_command_id); the other parts' payloads name it as
// run_id. How each part ended is kept in its start command's result
// (part_end), so the run ends once every part has, with the first failure.

// partRank is the SQL of a start command's part (0 for the first part or
// a job on one node).
const partRank = `coalesce((payload->'part'->>'rank')::int, 0)`

// PartEnd is how one part of a multi-node run ended.
type PartEnd struct {
	// Failed: it exited non-zero, could not start, or was lost.
	Failed bool      `json:"failed"`
	At     time.Time `json:"at"`
	End    RunEnd    `json:"end"`
}

// JobPart returns which part of a multi-node run start command c starts;
// nil for a job on one node (or a stop command).
func (c *NodeCommand) JobPart() *api.JobPart {
	if c.Kind != CommandStart {
		return nil
	}
	var s struct {
		Part *api.JobPart `json:"part"`
	}
	if json.Unmarshal(c.Payload, &s) != nil {
		return nil
	}
	return s.Part
}

// PartEnded returns how the part c starts ended; nil while it has not (a
// start withdrawn before its agent took it ended without running).
func (c *NodeCommand) PartEnded() *PartEnd {
	if c.State == CommandCanceled {
		return &PartEnd{At: derefTime(c.DoneAt), End: RunEnd{Stopped: true}}
	}
	var r struct {
		PartEnd *PartEnd `json:"part_end"`
	}
	if len(c.Result) == 0 || json.Unmarshal(c.Result, &r) != nil {
		return nil
	}
	return r.PartEnd
}

func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// RunParts returns the start commands of the parts of job's run runID
// queued so far, in rank order.
func RunParts(ctx context.Context, db bun.IDB, jobID, runID int64) ([]NodeCommand, error) {
	var out []NodeCommand
	err := db.NewSelect().Model(&out).Where("job_id = ? AND kind = ?", jobID, CommandStart).
		Where("(id = ? OR (payload->'part'->>'run_id')::bigint = ?)", runID, runID).
		OrderExpr(partRank + ", id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: parts of run %d of job %d: %w", runID, jobID, err)
	}
	return out, nil
}

// EndPart records how the part started by c ended, once: it reports
// whether this was the first report.
func EndPart(ctx context.Context, db bun.IDB, c *NodeCommand, e PartEnd) (bool, error) {
	raw, err := json.Marshal(map[string]PartEnd{"part_end": e})
	if err != nil {
		return false, fmt.Errorf("models: end of part %d: %w", c.ID, err)
	}
	res, err := db.NewUpdate().Model(c).Set("result = coalesce(result, '{}'::jsonb) || ?::jsonb", string(raw)).
		Where("id = ?", c.ID).Where("result->'part_end' IS NULL").Returning("*").Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("models: end of part %d: %w", c.ID, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// StopSent reports whether a stop of the run started by command startID
// was queued, and whether one was delivered to its agent.
func StopSent(ctx context.Context, db bun.IDB, jobID, startID int64) (queued, delivered bool, err error) {
	err = db.NewRaw(`SELECT count(*) > 0, coalesce(bool_or(delivered_at IS NOT NULL), false) FROM node_commands
		WHERE job_id = ? AND kind = ? AND (payload->>'start_command_id')::bigint = ?`, jobID, CommandStop, startID).
		Scan(ctx, &queued, &delivered)
	if err != nil {
		return false, false, fmt.Errorf("models: stops of run %d: %w", startID, err)
	}
	return queued, delivered, nil
}
