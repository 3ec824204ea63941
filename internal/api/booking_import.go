package api

import "time"

// ImportRow is what became (or would become) of one row of the sheet.
type ImportRow struct {
	Row       int       `json:"row"`
	Status    string    `json:"status"` // create, exists, invalid
	Reason    string    `json:"reason,omitempty"`
	Email     string    `json:"email"`
	GPUs      string    `json:"gpus"`
	StartsAt  time.Time `json:"starts_at"`
	EndsAt    time.Time `json:"ends_at"`
	Note      string    `json:"note,omitempty"`
	BookingID int64     `json:"booking_id,omitempty"`
	NewUser   bool      `json:"new_user,omitempty"`
}

// ImportReport is the answer of POST /api/v1/bookings/import. Error is
// set when nothing was written because some rows are invalid.
type ImportReport struct {
	Rows     []ImportRow `json:"rows"`
	Create   int         `json:"create"`
	Existing int         `json:"existing"`
	Invalid  int         `json:"invalid"`
	DryRun   bool        `json:"dry_run"`
	Written  bool        `json:"written"`
	Error    string      `json:"error,omitempty"`
	Code     string      `json:"code,omitempty"`
}

// ImportOptions are the query of an import.
type ImportOptions struct {
	DryRun, CreateUsers, SkipInvalid bool
	TZ                               string
}
