package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/calfeed"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// feedPast and feedAhead bound what a feed holds around now.
const (
	feedPast  = 60 * 24 * time.Hour
	feedAhead = 366 * 24 * time.Hour
)

// CalendarFeed handles GET /calendar/{token}.ics: a user's secret feed, no
// session needed, read-only. The "mine" feed holds the user's bookings,
// holds and running jobs' expected windows; the "team" feed everyone's
// bookings. A revoked or unknown token is a 404 that says nothing more.
func (h *Handlers) CalendarFeed(c echo.Context) error {
	token, ok := strings.CutSuffix(c.Param("file"), ".ics")
	if !ok || len(token) < 20 || len(token) > 100 {
		return echo.ErrNotFound
	}
	ctx := c.Request().Context()
	f, u, err := models.FeedByToken(ctx, h.DB.Bun, token)
	if err != nil {
		return fromModel(err, "calendar feed")
	}
	now := h.Now()
	var body []byte
	if f.Scope == models.FeedTeam {
		body, err = h.teamFeed(ctx, baseURL(c), now)
	} else {
		body, err = h.userFeed(ctx, u, baseURL(c), now)
	}
	if err != nil {
		return err
	}
	return serveFeed(c, body)
}

// serveFeed answers with the feed, or 304 when the client's copy (by
// ETag) is current: calendar clients poll feeds often.
func serveFeed(c echo.Context, body []byte) error {
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	c.Response().Header().Set("Cache-Control", "private, no-cache")
	c.Response().Header().Set("ETag", etag)
	if c.Request().Header.Get("If-None-Match") == etag {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, "text/calendar; charset=utf-8", body)
}

// feedStamp is the feed's DTSTAMP: its latest change (so that an unchanged
// feed is byte for byte the same), or now for an empty one.
func feedStamp(events []calfeed.Event, now time.Time) time.Time {
	var t time.Time
	for _, e := range events {
		if e.LastModified.After(t) {
			t = e.LastModified
		}
	}
	if t.IsZero() {
		return now
	}
	return t
}

// userFeed is u's own calendar: bookings, holds and running jobs.
func (h *Handlers) userFeed(ctx context.Context, u *models.User, base string, now time.Time) ([]byte, error) {
	rows, err := models.FeedBookings(ctx, h.DB.Bun, u.ID, true, now.Add(-feedPast), now.Add(feedAhead))
	if err != nil {
		return nil, err
	}
	jobs, err := models.FeedJobs(ctx, h.DB.Bun, u.ID)
	if err != nil {
		return nil, err
	}
	events := bookingEvents(rows, base, false)
	for _, j := range jobs {
		end, desc := j.StartedAt.Add(time.Hour), "expected end unknown: shown as one hour"
		if j.EstimatedDurationS != nil {
			end, desc = j.StartedAt.Add(time.Duration(*j.EstimatedDurationS)*time.Second), "expected end from the job's estimate"
		}
		if end.Before(now) {
			end, desc = now.Add(15*time.Minute), "running past its estimate"
		}
		name := j.Name
		if name == "" {
			name = fmt.Sprintf("job %d", j.ID)
		}
		events = append(events, calfeed.Event{UID: fmt.Sprintf("job-%d@gpuscheduler", j.ID), Summary: fmt.Sprintf("Running: %s (%s)", name, words.Count(j.GPUCount, "GPU")),
			Description: desc, Start: j.StartedAt, End: end, LastModified: j.UpdatedAt, Tentative: true,
			URL: fmt.Sprintf("%s/jobs/%d", base, j.ID), Category: "job"})
	}
	return calfeed.Write("GPUs: "+u.Email, events, feedStamp(events, now))
}

// teamFeed is everyone's bookings.
func (h *Handlers) teamFeed(ctx context.Context, base string, now time.Time) ([]byte, error) {
	rows, err := models.FeedBookings(ctx, h.DB.Bun, 0, false, now.Add(-feedPast), now.Add(feedAhead))
	if err != nil {
		return nil, err
	}
	events := bookingEvents(rows, base, true)
	return calfeed.Write("GPU bookings (team)", events, feedStamp(events, now))
}

// bookingEvents turns bookings and holds into feed events; withOwner puts
// the owner in the summary (the team feed).
func bookingEvents(rows []models.BookingRow, base string, withOwner bool) []calfeed.Event {
	out := make([]calfeed.Event, 0, len(rows))
	for i := range rows {
		b := &rows[i]
		what := fmt.Sprintf("%d × %s", b.GPUCount, firstOr(b.GPUModel, "GPU"))
		if len(b.GPUIDs) > 0 {
			what = fmt.Sprintf("%d named GPU%s", len(b.GPUIDs), plural(len(b.GPUIDs)))
		}
		summary := "GPU booking: " + what
		if b.Kind == models.BookingKindHold {
			summary = "GPU hold: " + what
		}
		if withOwner {
			summary = b.OwnerEmail + ": " + what
		}
		if b.Note != "" {
			summary += " — " + b.Note
		}
		e := calfeed.Event{UID: fmt.Sprintf("%s-%d@gpuscheduler", b.Kind, b.ID), Summary: summary, Start: b.StartsAt, End: b.EndsAt,
			Created: b.CreatedAt, LastModified: b.UpdatedAt, Sequence: b.Sequence, Canceled: b.CanceledAt != nil, Category: b.Kind,
			Description: fmt.Sprintf("%s's %s #%d: %s", b.OwnerEmail, b.Kind, b.ID, what)}
		if b.Kind == models.BookingKindBooking {
			e.URL = fmt.Sprintf("%s/bookings/%d", base, b.ID)
		}
		if b.EndedEarlyAt != nil {
			e.Description += " (ended early)"
		}
		out = append(out, e)
	}
	return out
}

// baseURL is the scheme and host the request came to.
func baseURL(c echo.Context) string { return c.Scheme() + "://" + c.Request().Host }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func firstOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
