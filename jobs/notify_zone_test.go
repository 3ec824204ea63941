package jobs_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A notification is worded for its reader: the instants of its reason and
// a booking's window in the reader's zone, with the zone's abbreviation,
// while the fields machines read stay RFC 3339 UTC.
func TestNotificationWordedForItsReader(t *testing.T) {
	t.Parallel()
	berlin, err := localtime.Load("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	stored := models.EventPayload{Event: models.EventBookingClashed, Title: "Your booking of 1 GPU was changed by an admin",
		Reason:  "now 2026-12-02T09:00:00Z to 2026-12-02T10:00:00Z, 1 GPU",
		Booking: &models.EventBooking{ID: 7, Kind: "booking", Owner: "ana@example.com", GPUCount: 1, StartsAt: start, EndsAt: start.Add(time.Hour)}}
	p := stored.In(berlin)
	if want := "now Wed 2 Dec 10:00 CET to Wed 2 Dec 11:00 CET, 1 GPU"; p.Reason != want {
		t.Errorf("reason %q, want %q", p.Reason, want)
	}
	msg, err := json.Marshal(jobs.SlackMessageOf(&p))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(msg), "Wed 2 Dec 10:00–11:00 CET") || strings.Contains(string(msg), "UTC") || strings.Contains(string(msg), "2026-12-02T") {
		t.Errorf("the Slack message should give the window in Berlin time: %s", msg)
	}
	hook, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(hook), `"starts_at":"2026-12-02T09:00:00Z"`) {
		t.Errorf("the webhook's fields should stay UTC: %s", hook)
	}
	if stored.Reason != "now 2026-12-02T09:00:00Z to 2026-12-02T10:00:00Z, 1 GPU" {
		t.Errorf("In changed the stored payload: %q", stored.Reason)
	}
}
