package views

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/a-h/templ"
)

// GiB formats a size in MiB as GiB with one decimal, e.g. 81559 -> "79.6".
// Negative sizes are shown as "0.0".
func GiB(mib int64) string {
	if mib < 0 {
		mib = 0
	}
	return strconv.FormatFloat(float64(mib)/1024, 'f', 1, 64)
}

// MemoryGiB formats used and total MiB as "12.3 / 80.0 GiB".
func MemoryGiB(usedMiB, totalMiB int64) string {
	return GiB(usedMiB) + " / " + GiB(totalMiB) + " GiB"
}

// Ago describes how long before now t was, coarsely: "just now", "12s ago",
// "5m ago", "3h ago", "2d ago". The zero time is "never"; a t after now (clock
// skew between machines) is "just now".
func Ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
}

// ClampPct rounds a percentage to the nearest integer within 0..100; NaN is 0.
func ClampPct(v float64) int {
	switch {
	case math.IsNaN(v) || v <= 0:
		return 0
	case v >= 100:
		return 100
	default:
		return int(math.Round(v))
	}
}

// UsedPct is used as a percentage of total, clamped to 0..100; 0 when total is not positive.
func UsedPct(used, total int64) int {
	if total <= 0 {
		return 0
	}
	return ClampPct(float64(used) * 100 / float64(total))
}

// gpuStates maps each known GPU state to its label.
var gpuStates = map[string]string{
	"free":        "Free",
	"allocated":   "Allocated",
	"held":        "Held",
	"booked":      "Booked",
	"unavailable": "Unavailable",
	"foreign":     "Outside use",
}

// StateClass is the CSS class for a GPU state, e.g. "free" -> "state-free";
// an unknown state gets "state-unknown" (grey).
func StateClass(state string) string {
	if _, ok := gpuStates[state]; ok {
		return "state-" + state
	}
	return "state-unknown"
}

// StateLabel is the human label for a GPU state; an unknown state is shown as is.
func StateLabel(state string) string {
	if l, ok := gpuStates[state]; ok {
		return l
	}
	if state == "" {
		return "Unknown"
	}
	return state
}

// StatusClass is the CSS class for a node status: "status-up", "status-down",
// "status-draining", or "status-unknown".
func StatusClass(status string) string {
	switch status {
	case "up", "down", "draining":
		return "status-" + status
	}
	return "status-unknown"
}

// HealthClass is the CSS class for a GPU health value: "health-ok",
// "health-degraded" or "health-failed"; anything else counts as degraded.
func HealthClass(health string) string {
	switch health {
	case "ok", "failed":
		return "health-" + health
	}
	return "health-degraded"
}

// JobURL is the link to a job's page.
func JobURL(id int64) templ.SafeURL {
	return templ.SafeURL("/jobs/" + strconv.FormatInt(id, 10))
}

// CSRFHeaders is the JSON for htmx's hx-headers attribute carrying the CSRF
// token. json.Marshal escapes quotes and <, >, & so the value cannot break out
// of the JSON; templ then escapes it for the attribute.
func CSRFHeaders(token string) string {
	b, err := json.Marshal(map[string]string{"X-CSRF-Token": token})
	if err != nil { // cannot happen for a map of strings
		return "{}"
	}
	return string(b)
}

// barStyle is the inline width of a utilization bar's fill.
func barStyle(pct int) string {
	return "width: " + strconv.Itoa(ClampPct(float64(pct))) + "%"
}

// downFor is " (since 5m0s)" for a Ray cluster down since then, else "".
func downFor(r RayStatus, now time.Time) string {
	if r.DownSince.IsZero() {
		return ""
	}
	return " (since " + now.Sub(r.DownSince).Round(time.Second).String() + ")"
}
