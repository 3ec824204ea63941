// Package calfeed writes iCalendar (RFC 5545) feeds of bookings, holds and
// jobs with go-ical: one VEVENT per item, with a stable UID, SEQUENCE and
// LAST-MODIFIED so that calendar clients show edits on refresh, and STATUS
// CANCELLED for what was canceled. Times are written in UTC. Text is
// written whatever it holds: line breaks (CR LF, CR, LF) as escaped
// newlines, other control characters left out, so that no stored note or
// name can make a feed fail. It knows nothing of the database.
package calfeed

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-ical"
)

// ProdID names the producer of the feeds.
const ProdID = "-//GPUScheduler//Bookings calendar//EN"

// Event is one item of a feed.
type Event struct {
	UID          string // stable: "booking-12@host"
	Summary      string
	Description  string
	Start, End   time.Time
	Created      time.Time
	LastModified time.Time
	Sequence     int
	Canceled     bool
	Tentative    bool   // an expected window (a running job's estimated end)
	URL          string // absolute link to the item's page, "" for none
	Category     string // "booking", "hold", "job"
}

// Write returns the feed named name holding events; stamp is DTSTAMP (the
// time the feed was produced).
func Write(name string, events []Event, stamp time.Time) ([]byte, error) {
	cal := ical.NewCalendar()
	cal.Props.SetText(ical.PropVersion, "2.0")
	cal.Props.SetText(ical.PropProductID, ProdID)
	cal.Props.SetText(ical.PropCalendarScale, "GREGORIAN")
	cal.Props.SetText(ical.PropMethod, "PUBLISH")
	setRaw(cal.Props, "X-WR-CALNAME", escapeText(clean(name)))
	setRaw(cal.Props, "X-PUBLISHED-TTL", "PT15M")
	if len(events) == 0 {
		// RFC 5545 wants at least one component: an empty feed carries UTC's VTIMEZONE.
		cal.Children = append(cal.Children, utcZone())
	}
	for _, e := range events {
		ev := ical.NewEvent()
		ev.Props.SetText(ical.PropUID, clean(e.UID))
		ev.Props.SetDateTime(ical.PropDateTimeStamp, stamp.UTC().Truncate(time.Second))
		ev.Props.SetDateTime(ical.PropDateTimeStart, e.Start.UTC().Truncate(time.Second))
		end := e.End.UTC().Truncate(time.Second)
		if !end.After(e.Start.UTC().Truncate(time.Second)) {
			end = e.Start.UTC().Truncate(time.Second).Add(time.Second)
		}
		ev.Props.SetDateTime(ical.PropDateTimeEnd, end)
		ev.Props.SetText(ical.PropSummary, clean(e.Summary))
		if e.Description != "" {
			ev.Props.SetText(ical.PropDescription, clean(e.Description))
		}
		if !e.Created.IsZero() {
			ev.Props.SetDateTime(ical.PropCreated, e.Created.UTC().Truncate(time.Second))
		}
		if !e.LastModified.IsZero() {
			ev.Props.SetDateTime(ical.PropLastModified, e.LastModified.UTC().Truncate(time.Second))
		}
		seq := ical.NewProp(ical.PropSequence)
		seq.Value = strconv.Itoa(e.Sequence)
		seq.SetValueType(ical.ValueInt)
		ev.Props.Set(seq)
		switch {
		case e.Canceled:
			ev.SetStatus(ical.EventCancelled)
		case e.Tentative:
			ev.SetStatus(ical.EventTentative)
		default:
			ev.SetStatus(ical.EventConfirmed)
		}
		if e.Category != "" {
			ev.Props.SetText(ical.PropCategories, clean(e.Category))
		}
		if e.URL != "" {
			if u, err := url.Parse(e.URL); err == nil {
				p := ical.NewProp(ical.PropURL)
				p.SetURI(u)
				ev.Props.Set(p)
			}
		}
		ev.Props.SetText(ical.PropTransparency, "OPAQUE")
		cal.Children = append(cal.Children, ev.Component)
	}
	var buf bytes.Buffer
	if err := ical.NewEncoder(&buf).Encode(cal); err != nil {
		return nil, fmt.Errorf("calfeed: %w", err)
	}
	return buf.Bytes(), nil
}

func setRaw(props ical.Props, name, value string) {
	p := ical.NewProp(name)
	p.Value = value
	props.Set(p)
}

// escapeText escapes a TEXT value (RFC 5545 3.3.11).
func escapeText(s string) string {
	return strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\n", `\n`).Replace(s)
}

// clean returns s as TEXT may hold it (RFC 5545 3.3.11: no control
// character but tab): line breaks as LF, which the escaping writes as \n,
// other controls (C0, DEL, C1) and invalid UTF-8 left out.
func clean(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	return strings.Map(func(c rune) rune {
		switch {
		case c == '\n' || c == '\t':
			return c
		case c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == utf8.RuneError:
			return -1
		}
		return c
	}, s)
}

// utcZone is the VTIMEZONE of UTC.
func utcZone() *ical.Component {
	tz := ical.NewComponent(ical.CompTimezone)
	tz.Props.SetText(ical.PropTimezoneID, "UTC")
	std := ical.NewComponent(ical.CompTimezoneStandard)
	setRaw(std.Props, ical.PropDateTimeStart, "19700101T000000")
	setRaw(std.Props, ical.PropTimezoneOffsetFrom, "+0000")
	setRaw(std.Props, ical.PropTimezoneOffsetTo, "+0000")
	std.Props.SetText(ical.PropTimezoneName, "UTC")
	tz.Children = append(tz.Children, std)
	return tz
}
