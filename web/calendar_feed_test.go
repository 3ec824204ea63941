package web_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/bookingcsv"
	"github.com/gpuscheduler/gpuscheduler/models"
)

var feedURL = regexp.MustCompile(`data-testid="feed-url">([^<]+)<`)

// feedEvents fetches a feed without any session and parses it as a
// calendar client would: UID → (STATUS, SEQUENCE).
func feedEvents(t *testing.T, u string) (int, map[string]string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	if resp.StatusCode != 200 {
		return resp.StatusCode, nil
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/calendar") {
		t.Fatalf("feed content type %q", ct)
	}
	cal, err := ical.NewDecoder(bytes.NewReader(body)).Decode()
	if err != nil {
		t.Fatalf("feed does not parse: %v\n%s", err, body)
	}
	out := map[string]string{}
	for _, e := range cal.Events() {
		uid, _ := e.Props.Text(ical.PropUID)
		st, _ := e.Status()
		seq, _ := e.Props.Get(ical.PropSequence).Int()
		out[uid] = fmt.Sprintf("%s/%d", st, seq)
	}
	return 200, out
}

// A user's secret feed needs no session and shows their bookings; edits
// and cancellations show on refresh (SEQUENCE, STATUS:CANCELLED); the team
// feed holds everyone's bookings; a regenerated address cuts off the old
// one and a revoked one answers 404.
func TestCalendarFeeds(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana := s.Login(t, "ana@example.com")
	s.Login(t, "bo@example.com")
	mine := calSeed(t, s, calUserID(t, s, "ana@example.com"), 2, 9, 12)
	theirs := calSeed(t, s, calUserID(t, s, "bo@example.com"), 2, 9, 12)
	regen := func(scope string) string {
		st, html, _ := postForm(t, s, ana, "/settings/feeds/"+scope+"/regenerate", url.Values{})
		m := feedURL.FindStringSubmatch(html)
		if st != 201 || m == nil {
			t.Fatalf("regenerate %s: %d", scope, st)
		}
		return m[1]
	}
	feed, team := regen("mine"), regen("team")
	uid := func(id int64) string { return fmt.Sprintf("booking-%d@gpuscheduler", id) }

	_, ev := feedEvents(t, feed)
	if ev[uid(mine)] != "CONFIRMED/0" || ev[uid(theirs)] != "" {
		t.Fatalf("ana's feed: %v", ev)
	}
	if _, ev := feedEvents(t, team); ev[uid(mine)] != "CONFIRMED/0" || ev[uid(theirs)] != "CONFIRMED/0" {
		t.Fatalf("team feed: %v", ev)
	}
	if st, _, _ := postForm(t, s, ana, fmt.Sprintf("/bookings/%d/edit", mine), url.Values{"extend": {"1h"}}); st != 303 {
		t.Fatalf("extend: %d", st)
	}
	if _, ev := feedEvents(t, feed); ev[uid(mine)] != "CONFIRMED/1" {
		t.Fatalf("after an edit: %v", ev)
	}
	if st, _, _ := postForm(t, s, ana, fmt.Sprintf("/bookings/%d/cancel-one", mine), url.Values{}); st != 303 {
		t.Fatalf("cancel: %d", st)
	}
	if _, ev := feedEvents(t, feed); ev[uid(mine)] != "CANCELLED/2" {
		t.Fatalf("after a cancel: %v", ev)
	}
	again := regen("mine")
	if st, _ := feedEvents(t, feed); st != 404 {
		t.Fatalf("the old address after regenerating: %d", st)
	}
	if st, _ := feedEvents(t, again); st != 200 {
		t.Fatalf("the new address: %d", st)
	}
	if st, _, _ := postForm(t, s, ana, "/settings/feeds/mine/revoke", url.Values{}); st != 303 {
		t.Fatalf("revoke: %d", st)
	}
	if st, _ := feedEvents(t, again); st != 404 {
		t.Fatalf("a revoked address: %d", st)
	}
	if st, _ := feedEvents(t, s.URL+"/calendar/cal_nothing-of-the-sort-at-all.ics"); st != 404 {
		t.Fatalf("a made-up address: %d", st)
	}
}

// The export is the sheet import reads back, in the asked zone, and an
// iCalendar file with the same bookings.
func TestBookingExport(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	tok, u := s.UserToken(t, models.RoleMember)
	id := calSeed(t, s, u.ID, 2, 9, 12)
	st, body := s.Do(t, "GET", "/api/v1/bookings/export?format=csv&tz=Europe/Berlin", tok, "")
	if st != 200 {
		t.Fatalf("export csv: %d %s", st, body)
	}
	rows, err := bookingcsv.Read(bytes.NewReader(body), mustZone(t, "Europe/Berlin"))
	if err != nil || len(rows) != 1 || rows[0].Email != u.Email || rows[0].GPUs != 2 || rows[0].Start.UTC().Hour() != 9 {
		t.Fatalf("export read back: %+v %v\n%s", rows, err, body)
	}
	if !strings.Contains(string(body), " 10:00,") {
		t.Errorf("09:00 UTC not written as 10:00 Berlin time:\n%s", body)
	}
	st, body = s.Do(t, "GET", "/api/v1/bookings/export?format=ics", tok, "")
	if st != 200 || !strings.Contains(string(body), fmt.Sprintf("UID:booking-%d@gpuscheduler", id)) {
		t.Fatalf("export ics: %d %s", st, body)
	}
	if st, _ := s.Do(t, "GET", "/api/v1/bookings/export?format=xls", tok, ""); st != 400 {
		t.Fatalf("a bad format: %d", st)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// A user's own feed holds their bookings, their holds and their running
// jobs' expected windows (tentative); not other people's.
func TestCalendarFeedMine(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	tok, u := s.UserToken(t, models.RoleMember)
	_, other := s.UserToken(t, models.RoleMember)
	st, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"gpu_count":1,"timeout_s":10,"estimated_duration":"2h"}`)
	if st != 200 && st != 202 {
		t.Fatalf("allocate: %d %s", st, body)
	}
	var alloc struct {
		JobID int64 `json:"id"`
	}
	mustJSON(t, body, &alloc)
	st, body = s.Do(t, "POST", "/api/v1/holds", tok, `{"gpu_count":1}`)
	if st != 202 {
		t.Fatalf("hold: %d %s", st, body)
	}
	var hold struct{ ID int64 }
	mustJSON(t, body, &hold)
	mine := calSeed(t, s, u.ID, 1, 9, 10)
	theirs := calSeed(t, s, other.ID, 1, 9, 10)
	var token string
	err := s.DB.InTx(t.Context(), func(ctx context.Context, tx *models.Tx) error {
		var err error
		token, _, err = models.RegenerateFeed(ctx, tx, u.ID, models.FeedMine, time.Now())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]string
	waitFor(t, "the job to run", func() bool {
		_, ev = feedEvents(t, s.URL+"/calendar/"+token+".ics")
		return ev[fmt.Sprintf("job-%d@gpuscheduler", alloc.JobID)] != ""
	})
	want := map[string]string{
		fmt.Sprintf("job-%d@gpuscheduler", alloc.JobID): "TENTATIVE/0",
		fmt.Sprintf("hold-%d@gpuscheduler", hold.ID):    "CONFIRMED/0",
		fmt.Sprintf("booking-%d@gpuscheduler", mine):    "CONFIRMED/0",
	}
	if diff := cmp.Diff(want, ev); diff != "" || ev[fmt.Sprintf("booking-%d@gpuscheduler", theirs)] != "" {
		t.Errorf("feed (-want +got):\n%s", diff)
	}
}

// An unchanged feed answers 304 to a client that has it (ETag); a change
// gives a new one.
func TestCalendarFeedETag(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	_, u := s.UserToken(t, models.RoleMember)
	calSeed(t, s, u.ID, 1, 9, 10)
	var token string
	err := s.DB.InTx(t.Context(), func(ctx context.Context, tx *models.Tx) error {
		var err error
		token, _, err = models.RegenerateFeed(ctx, tx, u.ID, models.FeedTeam, time.Now())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	get := func(etag string) (int, string) {
		req, _ := http.NewRequest("GET", s.URL+"/calendar/"+token+".ics", nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("ETag")
	}
	_, etag := get("")
	if st, again := get(etag); st != http.StatusNotModified || again != etag {
		t.Fatalf("unchanged feed: %d %s (was %s)", st, again, etag)
	}
	calSeed(t, s, u.ID, 1, 11, 12)
	if st, _ := get(etag); st != 200 {
		t.Fatalf("changed feed: %d", st)
	}
}
