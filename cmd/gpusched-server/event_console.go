package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/views"
)

// eventConsole prints one line per event a person watching `serve --dev`
// cares about: a job submitted, started (where), ended (how), preempted or
// requeued; a booking or hold made. It reads the job moves and bookings
// recorded since it last looked whenever the database signals a change
// (and every few seconds, should a signal be missed), so every replica's
// changes are seen, once each.
type eventConsole struct {
	db       *models.DB
	listener *models.Listener
	logger   *slog.Logger
	lastMove int64
	lastBook int64
}

// run prints events until ctx ends; it starts after what is already there.
func (ec *eventConsole) run(ctx context.Context) {
	var err error
	if ec.lastMove, ec.lastBook, err = models.ConsoleMarks(ctx, ec.db.Bun); err != nil {
		ec.logger.Warn("the event console did not start", "err", err)
		return
	}
	events, stop := ec.listener.Subscribe("jobs", "gpus", "bookings")
	defer stop()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-events:
		case <-tick.C:
		}
		if err := ec.print(ctx); err != nil && ctx.Err() == nil {
			ec.logger.Debug("event console", "err", err)
		}
	}
}

// print writes the lines for what happened since the last look.
func (ec *eventConsole) print(ctx context.Context) error {
	moves, err := models.JobEventsAfter(ctx, ec.db.Bun, ec.lastMove, 200)
	if err != nil {
		return err
	}
	for _, m := range moves {
		ec.lastMove = m.ID
		if line := ec.moveLine(ctx, m); line != "" {
			ec.logger.Info(line, "job", m.JobID, "state", m.ToState)
		}
	}
	books, err := models.BookingsAfter(ctx, ec.db.Bun, ec.lastBook, 200)
	if err != nil {
		return err
	}
	for _, b := range books {
		ec.lastBook = b.ID
		ec.logger.Info(bookingLine(b), "booking", b.ID)
	}
	return nil
}

// moveLine words a job's move; "" for the steps between (scheduled,
// allocating) that say nothing new.
func (ec *eventConsole) moveLine(ctx context.Context, m models.ConsoleJobEvent) string {
	job := fmt.Sprintf("job %d", m.JobID)
	if m.Name != "" {
		job += " (" + m.Name + ")"
	}
	switch m.ToState {
	case models.JobQueued:
		if m.FromState == nil {
			return fmt.Sprintf("%s submitted by %s: %s", job, m.Owner, words.Count(m.GPUs, "GPU"))
		}
		return fmt.Sprintf("%s back in the queue: %s", job, m.Reason)
	case models.JobRunning:
		where := ""
		if gpus, err := models.JobGPUs(ctx, ec.db.Bun, m.JobID); err == nil && len(gpus) > 0 {
			places := make([]views.GPUPlace, len(gpus))
			for i, g := range gpus {
				places[i] = views.GPUPlace{Node: g.NodeName, Index: g.Index}
			}
			where = " on " + views.PlacesWords(places)
		}
		return job + " started" + where
	case models.JobPreempted:
		return fmt.Sprintf("%s preempted: %s", job, m.Reason)
	case models.JobCompleted, models.JobFailed, models.JobCanceled, models.JobTimeout:
		s := fmt.Sprintf("%s ended: %s", job, m.ToState)
		if m.Reason != "" {
			s += " (" + m.Reason + ")"
		}
		return s
	}
	return ""
}

// bookingLine words a booking or hold just made.
func bookingLine(b models.ConsoleBooking) string {
	const when = "Mon 2 Jan 15:04 MST"
	return fmt.Sprintf("%s %d made by %s: %s, %s to %s", b.Kind, b.ID, b.Owner, words.Count(b.GPUs, "GPU"),
		b.StartsAt.Local().Format(when), b.EndsAt.Local().Format(when))
}
