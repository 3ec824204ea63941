package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// Components show times in the zone of the render's context, UTC without one.
func TestTimesInTheViewersZone(t *testing.T) {
	t.Parallel()
	tokyo, err := localtime.Load("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	ctx := localtime.WithZone(context.Background(), tokyo)
	now := time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC) // Wed 00:00 JST
	for _, tc := range []struct{ name, got, want string }{
		{"clock", LocalClock(ctx, now), "00:00 JST"},
		{"stamp", LocalStamp(ctx, now), "Wed 25 Nov 00:00 JST"},
		{"zero stamp", LocalStamp(ctx, time.Time{}), "–"},
		{"soon", LocalSoon(ctx, now.Add(29*time.Minute), now), "~00:29 JST (in 29m)"},
		{"window", LocalWindow(ctx, now.Add(9*time.Hour), now.Add(18*time.Hour)), "Wed 25 Nov 09:00–18:00 JST"},
		{"no zone", LocalClock(context.Background(), now), "15:00 UTC"},
		{"zone name", ZoneName(ctx), "Asia/Tokyo"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	var buf bytes.Buffer
	g := GPU{Index: 0, State: "allocated", JobID: 7, IdleSince: now.Add(-time.Hour), Until: "until ~02:00 JST (in 2h)"}
	if err := GPUTile(g).Render(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"near 0% since 23:00 JST", `data-testid="gpu-until"`, "until ~02:00 JST (in 2h)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the tile lacks %q", want)
		}
	}
}

// Scripts learn the zone's abbreviations by offset, both of them across a
// DST change; zones west of UTC have negative offsets.
func TestZoneAbbrevs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ zone, want string }{
		{"Europe/Berlin", `{"+01:00":"CET","+02:00":"CEST"}`},
		{"America/New_York", `{"-04:00":"EDT","-05:00":"EST"}`},
		{"UTC", `{"+00:00":"UTC"}`},
	} {
		loc, err := localtime.Load(tc.zone)
		if err != nil {
			t.Fatal(err)
		}
		from := time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC) // a month across the autumn changes
		if got := ZoneAbbrevs(localtime.WithZone(context.Background(), loc), from, from.AddDate(0, 1, 0)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.zone, got, tc.want)
		}
	}
}
