package api

import "time"

// What became of a row of the sheet (ImportRow.Status).
const (
	ImportCreate  = "create"  // written (or, in a dry run, would be)
	ImportExists  = "exists"  // imported before: reported, not duplicated
	ImportInvalid = "invalid" // refused; Reason says why
)

// ImportRow is what became (or would become) of one row of the sheet.
type ImportRow struct {
	Row       int       `json:"row"`    // its line in the sheet
	Status    string    `json:"status"` // ImportCreate, ImportExists or ImportInvalid
	Reason    string    `json:"reason,omitempty"`
	Email     string    `json:"email"`
	GPUs      string    `json:"gpus"`
	StartsAt  time.Time `json:"starts_at"`
	EndsAt    time.Time `json:"ends_at"`
	Note      string    `json:"note,omitempty"`
	BookingID int64     `json:"booking_id,omitempty"`
	NewUser   bool      `json:"new_user,omitempty"`
	// Warning: the row is imported, but something needs a look (its owner
	// goes over the live-booking limit members are held to).
	Warning string `json:"warning,omitempty"`
}

// ImportReport is the answer of POST /api/v1/bookings/import: per row what
// was (or, in a dry run, would be) created, or why not, and the counts.
// Written says whether anything was written; Error and Code are set when
// nothing was because some rows are invalid (422).
type ImportReport struct {
	Rows     []ImportRow `json:"rows"`
	Create   int         `json:"create"`
	Existing int         `json:"existing"`
	Invalid  int         `json:"invalid"`
	// Warnings counts the rows with a warning.
	Warnings int    `json:"warnings,omitempty"`
	DryRun   bool   `json:"dry_run"`
	Written  bool   `json:"written"`
	Error    string `json:"error,omitempty"`
	Code     string `json:"code,omitempty"`
}

// ImportOptions are the query of an import.
type ImportOptions struct {
	DryRun      bool   // dry_run: report only; write nothing
	CreateUsers bool   // create_users: an unknown email becomes a member (else the row is invalid)
	SkipInvalid bool   // skip_invalid: write the valid rows even when some are invalid
	TZ          string // tz: the zone of times without an offset (IANA name; default UTC)
}
