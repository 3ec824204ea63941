package api

// SeriesRequest is the body of POST /api/v1/bookings/series: the same
// GPUs on the given weekdays from first_day to last_day, start_time to
// end_time in time_zone (an end at or before the start is the next day).
type SeriesRequest struct {
	GPUCount  int      `json:"gpu_count,omitempty"`
	GPUModel  string   `json:"gpu_model,omitempty"`
	GPUIDs    GPURefs  `json:"gpu_ids,omitempty"` // as BookingRequest's
	Note      string   `json:"note,omitempty"`
	TimeZone  string   `json:"time_zone,omitempty"` // IANA name; default UTC
	FirstDay  string   `json:"first_day"`           // 2026-11-30
	LastDay   string   `json:"last_day"`            // 2026-12-11, inclusive
	Days      []string `json:"days,omitempty"`      // mon … sun; default: first_day's weekday
	StartTime string   `json:"start_time"`          // 09:00
	EndTime   string   `json:"end_time"`            // 18:00
}

// Series is a created series and its occurrences.
type Series struct {
	SeriesID int64     `json:"series_id"`
	Bookings []Booking `json:"bookings"`
}
