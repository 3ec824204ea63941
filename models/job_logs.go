package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// LogCap is how many bytes of a run's output are kept: older chunks are
// dropped once newer ones pass it.
const LogCap = 10 << 20

// LogChunk is a piece of a run's output starting at byte Offset of it.
type LogChunk struct {
	bun.BaseModel `bun:"table:job_logs,alias:jl"`

	CommandID int64     `bun:"command_id,pk"`
	JobID     int64     `bun:"job_id,notnull"`
	Offset    int64     `bun:"offset,pk"`
	Data      []byte    `bun:"data,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// AppendLog stores a chunk of the output of the run started by command
// commandID. A chunk already stored at that offset (a retry) changes
// nothing, unless the new one is longer. Chunks wholly older than the last LogCap bytes are dropped.
func AppendLog(ctx context.Context, db bun.IDB, commandID, jobID, offset int64, data []byte, now time.Time) error {
	if len(data) == 0 {
		return nil
	}
	ch := &LogChunk{CommandID: commandID, JobID: jobID, Offset: offset, Data: data, CreatedAt: now}
	// A resend from the same offset may carry more: the longer one wins.
	_, err := db.NewInsert().Model(ch).On(`CONFLICT (command_id, "offset") DO UPDATE`).
		Set("data = EXCLUDED.data").Where("length(EXCLUDED.data) > length(jl.data)").Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: log of job %d: %w", jobID, err)
	}
	end := offset + int64(len(data))
	if end <= LogCap {
		return nil
	}
	_, err = db.NewDelete().Model((*LogChunk)(nil)).
		Where(`command_id = ? AND "offset" + length(data) <= ?`, commandID, end-LogCap).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: trim log of job %d: %w", jobID, err)
	}
	return nil
}

// LogPage is a stretch of a run's output.
type LogPage struct {
	CommandID int64 // the run (start command); 0 when the job never ran on a node
	Offset    int64 // where Data starts: later than asked when older output was dropped
	Next      int64 // the offset to ask for next
	Data      []byte
}

// ReadLog returns up to limit bytes of the output of job's newest run from
// offset on.
func ReadLog(ctx context.Context, db bun.IDB, jobID, offset int64, limit int) (LogPage, error) {
	page := LogPage{Offset: offset, Next: offset}
	start, err := LatestCommand(ctx, db, jobID, CommandStart)
	if errors.Is(err, ErrNotFound) {
		return page, nil
	}
	if err != nil {
		return page, err
	}
	return readCommandLog(ctx, db, jobID, start.ID, offset, limit)
}

// readCommandLog returns up to limit bytes of the output of the run
// started by command cmdID from offset on.
func readCommandLog(ctx context.Context, db bun.IDB, jobID, cmdID, offset int64, limit int) (LogPage, error) {
	page := LogPage{CommandID: cmdID, Offset: offset, Next: offset}
	var chunks []LogChunk
	err := db.NewSelect().Model(&chunks).Where(`command_id = ? AND "offset" + length(data) > ?`, cmdID, offset).
		OrderExpr(`"offset"`).Scan(ctx)
	if err != nil {
		return page, fmt.Errorf("models: read log of job %d: %w", jobID, err)
	}
	chunkPage(&page, chunks, limit)
	return page, nil
}

// chunkPage fills page (its Offset set to the offset asked for) with up to
// limit bytes of the output in chunks (in offset order, each past Offset)
// and sets Next. Offset moves to the first chunk when older output was
// dropped; the page stops at a gap (a chunk not stored yet); overlapping
// chunks (a resend) are read once.
func chunkPage(page *LogPage, chunks []LogChunk, limit int) {
	for i, ch := range chunks {
		if i == 0 && ch.Offset > page.Offset {
			page.Offset = ch.Offset // older output was dropped
		}
		if ch.Offset > page.Offset+int64(len(page.Data)) {
			break // a gap: a chunk not shipped yet
		}
		from := max(page.Offset+int64(len(page.Data))-ch.Offset, 0)
		if from >= int64(len(ch.Data)) {
			continue // wholly inside what is read already (a resend)
		}
		page.Data = append(page.Data, ch.Data[from:]...)
		if len(page.Data) >= limit {
			page.Data = page.Data[:limit]
			break
		}
	}
	page.Next = page.Offset + int64(len(page.Data))
}
