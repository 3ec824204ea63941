package views

// TimeZoneForm is the time-zone settings page: the zone in use and the
// outcome of the last save.
type TimeZoneForm struct {
	Zone    string // IANA name in use; "" when unset (UTC)
	Now     string // the current time in that zone, "Tue 24 Nov 16:01 CET"
	Error   string
	Done    string
	Choices []string // common zones offered (any IANA name is accepted)
}

// CommonZones are the zones the settings form suggests; any IANA name is
// accepted.
var CommonZones = []string{
	"UTC", "Europe/London", "Europe/Lisbon", "Europe/Dublin", "Europe/Paris", "Europe/Berlin", "Europe/Amsterdam",
	"Europe/Zurich", "Europe/Vienna", "Europe/Madrid", "Europe/Rome", "Europe/Stockholm", "Europe/Warsaw",
	"Europe/Helsinki", "Europe/Athens", "Europe/Istanbul", "Europe/Moscow", "Africa/Cairo", "Africa/Johannesburg",
	"Asia/Dubai", "Asia/Kolkata", "Asia/Singapore", "Asia/Shanghai", "Asia/Hong_Kong", "Asia/Tokyo", "Asia/Seoul",
	"Australia/Sydney", "Australia/Perth", "Pacific/Auckland", "America/Sao_Paulo", "America/New_York",
	"America/Toronto", "America/Chicago", "America/Denver", "America/Phoenix", "America/Los_Angeles",
	"America/Anchorage", "Pacific/Honolulu",
}
