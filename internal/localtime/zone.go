// Package localtime shows times as each person lives them: in a time zone
// of their choosing (IANA names such as "Europe/Berlin"), with the zone's
// abbreviation, relative phrases ("in 29m", "ends ~16:30"), and day and
// half-day boundaries that stay right across daylight-saving changes.
// Storage and the API stay UTC; only what people read and type is local.
// It imports only the standard library.
package localtime

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// zones caches loaded locations by name: time.LoadLocation reads and parses
// a file on every call, and pages format hundreds of times.
var zones sync.Map // string -> *time.Location

// Load returns the location of an IANA zone name ("Europe/Berlin", "UTC").
// The empty name is UTC. "Local" is refused: a stored zone must mean the
// same on every machine.
func Load(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if v, ok := zones.Load(name); ok {
		return v.(*time.Location), nil
	}
	if name == "Local" || strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
		return nil, fmt.Errorf("localtime: %q is not a time zone name like Europe/Berlin", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("localtime: %q is not a known time zone: %w", name, err)
	}
	zones.Store(name, loc)
	return loc, nil
}

// Valid reports whether name is a zone Load accepts.
func Valid(name string) bool {
	_, err := Load(name)
	return err == nil
}

// OrUTC is the location of name, or UTC when it is empty or unknown.
func OrUTC(name string) *time.Location {
	loc, err := Load(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

type ctxKey struct{}

// WithZone returns ctx carrying loc, the zone a page's times are shown in.
func WithZone(ctx context.Context, loc *time.Location) context.Context {
	if loc == nil {
		loc = time.UTC
	}
	return context.WithValue(ctx, ctxKey{}, loc)
}

// FromContext is the zone WithZone stored in ctx, else UTC.
func FromContext(ctx context.Context) *time.Location {
	if ctx != nil {
		if loc, ok := ctx.Value(ctxKey{}).(*time.Location); ok && loc != nil {
			return loc
		}
	}
	return time.UTC
}
