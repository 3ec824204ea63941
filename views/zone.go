package views

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
)

// Times on pages are shown in the viewer's zone, which the handlers put in
// the render context (localtime.WithZone); without one they are UTC. These
// helpers read it, so that every component formats the same way.

// zoneOf is the viewer's zone of a render.
func zoneOf(ctx context.Context) *time.Location { return localtime.FromContext(ctx) }

// ZoneAbbrev is the viewer's zone's abbreviation at t: "CET".
func ZoneAbbrev(ctx context.Context, t time.Time) string { return localtime.Abbrev(t, zoneOf(ctx)) }

// ZoneName is the viewer's zone's IANA name: "Europe/Berlin".
func ZoneName(ctx context.Context) string { return zoneOf(ctx).String() }

// LocalClock is "15:04 CET" in the viewer's zone.
func LocalClock(ctx context.Context, t time.Time) string { return localtime.Clock(t, zoneOf(ctx)) }

// LocalClockSeconds is "15:04:05 CET" in the viewer's zone.
func LocalClockSeconds(ctx context.Context, t time.Time) string {
	return t.In(zoneOf(ctx)).Format("15:04:05 MST")
}

// LocalStamp is "Mon 2 Jan 15:04 CET" in the viewer's zone; "–" for the zero time.
func LocalStamp(ctx context.Context, t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return localtime.Stamp(t, zoneOf(ctx))
}

// LocalStampSeconds is "Mon 2 Jan 15:04:05 CET" in the viewer's zone.
func LocalStampSeconds(ctx context.Context, t time.Time) string {
	return localtime.StampSeconds(t, zoneOf(ctx))
}

// LocalWindow is a span in the viewer's zone: "Thu 26 Nov 09:00–18:00 CET".
func LocalWindow(ctx context.Context, from, to time.Time) string {
	return localtime.Window(from, to, zoneOf(ctx))
}

// LocalWhen is a moment relative to now in the viewer's zone: "16:30 CET",
// "Thu 09:00 CET", or with the date when further.
func LocalWhen(ctx context.Context, t, now time.Time) string {
	return localtime.When(t, now, zoneOf(ctx))
}

// ISO is t as RFC 3339 UTC, for <time datetime>.
func ISO(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// LocalSoon is an expected moment for deciding: "~16:30 CET (in 29m)",
// "~Thu 09:00 CET (in 2d 3h)", "–" for the zero time.
func LocalSoon(ctx context.Context, t, now time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return "~" + localtime.When(t, now, zoneOf(ctx)) + " (" + localtime.Relative(t, now) + ")"
}

// ZoneAbbrevs maps the UTC offsets of the viewer's zone between from and to
// to its abbreviations, as JSON for scripts that word times (usage.js):
// {"+01:00":"CET"}, two entries across a DST change.
func ZoneAbbrevs(ctx context.Context, from, to time.Time) string {
	loc, out := zoneOf(ctx), map[string]string{}
	for t := from; ; t = t.Add(time.Hour) {
		if t.After(to) {
			t = to
		}
		name, off := t.In(loc).Zone()
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		out[fmt.Sprintf("%s%02d:%02d", sign, off/3600, off%3600/60)] = name
		if !t.Before(to) {
			break
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
