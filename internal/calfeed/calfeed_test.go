package calfeed_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/emersion/go-ical"
	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/calfeed"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func events() []calfeed.Event {
	t0 := time.Date(2026, 3, 27, 8, 0, 0, 0, time.UTC) // DST starts in Europe on the 29th
	return []calfeed.Event{
		{UID: "booking-1@gpuscheduler", Summary: "ana@example.com: 2 × H100 — fine-tune, run 3", Start: t0, End: t0.Add(9 * time.Hour),
			Created: t0.Add(-time.Hour), LastModified: t0.Add(-time.Minute), Sequence: 2, Category: "booking",
			Description: "ana@example.com's booking #1: 2 × H100", URL: "https://gpus.example.com/bookings/1"},
		{UID: "booking-2@gpuscheduler", Summary: "bo@example.com: 1 × GPU", Start: t0.Add(72 * time.Hour), End: t0.Add(80 * time.Hour),
			LastModified: t0, Sequence: 1, Canceled: true, Category: "booking"},
		{UID: "job-7@gpuscheduler", Summary: "Running: train (4 GPUs)", Start: t0, End: t0.Add(90 * time.Minute), Tentative: true, Category: "job"},
	}
}

// The feed is what the golden file holds, byte for byte.
func TestWriteGolden(t *testing.T) {
	t.Parallel()
	got, err := calfeed.Write("GPU bookings (team)", events(), time.Date(2026, 3, 26, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "team.ics")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("feed (-golden +got):\n%s", diff)
	}
}

// A calendar client's parser reads every event back: UID, window,
// SEQUENCE and STATUS; an empty feed is valid too.
func TestWriteParses(t *testing.T) {
	t.Parallel()
	body, err := calfeed.Write("x", events(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cal, err := ical.NewDecoder(bytes.NewReader(body)).Decode()
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, body)
	}
	type ev struct {
		UID, Status string
		Seq         int
		Start, End  time.Time
	}
	var got []ev
	for _, e := range cal.Events() {
		uid, _ := e.Props.Text(ical.PropUID)
		st, _ := e.Status()
		seq, _ := e.Props.Get(ical.PropSequence).Int()
		s, _ := e.DateTimeStart(time.UTC)
		en, _ := e.DateTimeEnd(time.UTC)
		got = append(got, ev{uid, string(st), seq, s, en})
	}
	var want []ev
	for _, e := range events() {
		st := "CONFIRMED"
		if e.Canceled {
			st = "CANCELLED"
		} else if e.Tentative {
			st = "TENTATIVE"
		}
		want = append(want, ev{e.UID, st, e.Sequence, e.Start, e.End})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if _, err := calfeed.Write("empty", nil, time.Now()); err != nil {
		t.Errorf("empty feed: %v", err)
	}
}

// What is already stored may hold control characters (a CR in a booking
// note, an escape in a name): the feed is still written, parses, and
// shows the text with its line breaks and without the controls.
func TestWriteControlCharacters(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 27, 8, 0, 0, 0, time.UTC)
	evs := []calfeed.Event{{UID: "booking-9@gpuscheduler\r", Summary: "ana: 1 × GPU — run\r3\x1b[31m", Description: "line one\r\nline two\x00\x7f\u0085 end\xff",
		Start: t0, End: t0.Add(time.Hour), Category: "booking\n"}}
	body, err := calfeed.Write("team\rfeed\x07", evs, t0)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	cal, err := ical.NewDecoder(bytes.NewReader(body)).Decode()
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, body)
	}
	if len(cal.Events()) != 1 {
		t.Fatalf("%d events:\n%s", len(cal.Events()), body)
	}
	e := cal.Events()[0]
	summary, _ := e.Props.Text(ical.PropSummary)
	desc, _ := e.Props.Text(ical.PropDescription)
	uid, _ := e.Props.Text(ical.PropUID)
	got := []string{uid, summary, desc}
	want := []string{"booking-9@gpuscheduler\n", "ana: 1 × GPU — run\n3[31m", "line one\nline two end"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("text read back (-want +got):\n%s", diff)
	}
}
