package models

import (
	"time"

	"github.com/uptrace/bun"
)

// Booking kinds: a calendar claim, or an agent's short pre-warm hold.
const (
	BookingKindBooking = "booking"
	BookingKindHold    = "hold"
)

// Booking is a user's claim on GPUs for a window (DESIGN.md "Holds and
// bookings"). Its queries arrive with the bookings calendar.
type Booking struct {
	bun.BaseModel `bun:"table:bookings"`

	ID       int64  `bun:"id,pk,autoincrement" json:"id"`
	UserID   int64  `bun:"user_id,notnull" json:"user_id"`
	Kind     string `bun:"kind,notnull" json:"kind"`
	GPUCount int    `bun:"gpu_count,notnull" json:"gpu_count"`
	GPUModel string `bun:"gpu_model,notnull" json:"gpu_model"`
	// GPUShare, above 0, books that fraction of one shared GPU (GPUCount
	// 1; migration 0030): the slots that hold it are kept for its owner.
	GPUShare   float64    `bun:"gpu_share,notnull" json:"gpu_share,omitempty"`
	NodeID     *int64     `bun:"node_id" json:"node_id,omitempty"`
	StartsAt   time.Time  `bun:"starts_at,notnull" json:"starts_at"`
	EndsAt     time.Time  `bun:"ends_at,notnull" json:"ends_at"`
	Note       string     `bun:"note,notnull" json:"note"`
	Source     string     `bun:"source,notnull" json:"source"`
	CanceledAt *time.Time `bun:"canceled_at" json:"canceled_at,omitempty"`
	CreatedAt  time.Time  `bun:"created_at,notnull,default:now()" json:"created_at"`

	// Holds only (migration 0005, models/holds.go): how the hold ended and
	// what it asked for.
	ConsumedAt    *time.Time `bun:"consumed_at" json:"consumed_at,omitempty"`
	ConsumedByJob *int64     `bun:"consumed_by_job" json:"consumed_by_job,omitempty"`
	ExpiredAt     *time.Time `bun:"expired_at" json:"expired_at,omitempty"`
	MinMemoryMiB  *int64     `bun:"min_memory_mib" json:"min_memory_mib,omitempty"`
	JobType       string     `bun:"job_type,notnull" json:"job_type,omitempty"`
	// PinnedGPUIDs are the GPUs the last scheduling pass kept for it while
	// in force (migration 0008, RecordBookingPins).
	PinnedGPUIDs []int64 `bun:"pinned_gpu_ids,array" json:"pinned_gpu_ids,omitempty"`

	// Edits, series and imports (migration 0012): Sequence counts edits
	// (iCalendar SEQUENCE), UpdatedAt is the last change, SeriesID joins
	// the occurrences of a recurring booking, EndedEarlyAt is when its
	// owner ended it early, ImportFingerprint names the imported CSV row.
	SeriesID          *int64     `bun:"series_id" json:"series_id,omitempty"`
	Sequence          int        `bun:"sequence,notnull" json:"sequence"`
	UpdatedAt         time.Time  `bun:"updated_at,notnull,default:now()" json:"updated_at"`
	EndedEarlyAt      *time.Time `bun:"ended_early_at" json:"ended_early_at,omitempty"`
	ImportFingerprint string     `bun:"import_fingerprint,nullzero" json:"-"`
}
