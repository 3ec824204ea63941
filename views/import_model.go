package views

// AdminImport is the admin's import page (/admin/import): upload the
// sheet, see per row what would be created or why not, confirm.
type AdminImport struct {
	CSRF        string
	TZ          string // the zone of times without an offset
	Sheet       string // the sheet being previewed, carried to the confirm form
	CreateUsers bool
	SkipInvalid bool
	Rows        []ImportPreviewRow
	Summary     string
	Warning     string // about the rows with a warning, when there are some
	CanConfirm  bool   // the preview found rows to write, and they may be written
	Confirmed   bool   // this is the outcome of a confirmed import
	Error       string
	Done        string
}

// ImportPreviewRow is one row of the sheet and its outcome.
type ImportPreviewRow struct {
	Row       int
	Status    string // create, exists, invalid
	What      string // "will create", "created #12", "already imported", "refused"
	Email     string
	GPUs      string
	Window    string // in the chosen zone
	Reason    string
	Warning   string // imported all the same: its owner goes over the live-booking limit
	BookingID int64
}
