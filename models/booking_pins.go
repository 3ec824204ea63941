package models

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// RecordBookingPins stores the GPUs a pass kept for each booking or hold in
// force, writing only the rows whose pins changed, and returns how many
// did (0: the dashboard has nothing new to show).
func RecordBookingPins(ctx context.Context, db bun.IDB, pins []scheduler.Pin) (int, error) {
	if len(pins) == 0 {
		return 0, nil
	}
	type pin struct {
		ID   int64   `json:"id"`
		GPUs []int64 `json:"gpus"`
	}
	rows := make([]pin, len(pins))
	for i, p := range pins {
		rows[i] = pin{p.BookingID, p.GPUIDs}
	}
	payload, err := json.Marshal(rows)
	if err != nil {
		return 0, fmt.Errorf("models: booking pins: %w", err)
	}
	res, err := db.NewRaw(`
UPDATE bookings b SET pinned_gpu_ids = p.gpus
FROM (SELECT (e->>'id')::bigint AS id,
             ARRAY(SELECT g::bigint FROM jsonb_array_elements_text(e->'gpus') AS g) AS gpus
      FROM jsonb_array_elements(?::jsonb) AS e) p
WHERE b.id = p.id AND b.pinned_gpu_ids IS DISTINCT FROM p.gpus`, string(payload)).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("models: booking pins: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
