package main

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// The console words each event in one line, counts in the right number,
// and says nothing of the steps between (scheduled, allocating).
func TestEventConsoleLines(t *testing.T) {
	t.Parallel()
	running := models.JobRunning
	ec := &eventConsole{}
	got := map[string]string{}
	for name, m := range map[string]models.ConsoleJobEvent{
		"submitted": {JobID: 3, ToState: models.JobQueued, Name: "train", Owner: "ana@example.com", GPUs: 1},
		"ended":     {JobID: 3, FromState: &running, ToState: models.JobFailed, Name: "train", Reason: "stopped by the server's shutdown"},
		"scheduled": {JobID: 4, ToState: models.JobScheduled},
	} {
		got[name] = ec.moveLine(context.Background(), m)
	}
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.Local)
	got["booking"] = bookingLine(models.ConsoleBooking{ID: 7, Kind: "booking", Owner: "bo@example.com", GPUs: 2, StartsAt: start, EndsAt: start.Add(2 * time.Hour)})
	want := map[string]string{
		"submitted": "job 3 (train) submitted by ana@example.com: 1 GPU",
		"ended":     "job 3 (train) ended: failed (stopped by the server's shutdown)",
		"scheduled": "",
		"booking":   "booking 7 made by bo@example.com: 2 GPUs, " + start.Format("Mon 2 Jan 15:04 MST") + " to " + start.Add(2*time.Hour).Format("Mon 2 Jan 15:04 MST"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("console lines (-want +got):\n%s", diff)
	}
}
