package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/gpuscheduler/gpuscheduler/internal/pages"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// permanentError is a delivery failure that retrying cannot fix (a 4xx, a
// refused address): the delivery is dead at once.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

func permanent(format string, args ...any) error { return permanentError{fmt.Errorf(format, args...)} }

// NotifyDeliverWorker delivers one notification over its channel: quiet
// hours and the channel's rate limit make it wait (snooze); 5xx, 429 and
// timeouts are retried with backoff; after the last try, or on an error no
// retry can fix, the delivery is dead with its reason kept for the user and
// the admin.
type NotifyDeliverWorker struct {
	river.WorkerDefaults[models.NotifyDeliverArgs]
	deps *Deps
	// sender is built at the first delivery, from the configuration then.
	sender func() *sender
}

// Timeout bounds one attempt a little beyond the channel's own timeout.
func (w *NotifyDeliverWorker) Timeout(*river.Job[models.NotifyDeliverArgs]) time.Duration {
	return 2*w.deps.Config.Notify.timeout() + 5*time.Second
}

// NextRetry doubles the delay from RetryBase.
func (w *NotifyDeliverWorker) NextRetry(job *river.Job[models.NotifyDeliverArgs]) time.Time {
	d := w.deps.Config.Notify.retryBase() << min(max(job.Attempt-1, 0), 10)
	return time.Now().Add(d)
}

// Work delivers the notification once.
func (w *NotifyDeliverWorker) Work(ctx context.Context, job *river.Job[models.NotifyDeliverArgs]) error {
	db := w.deps.DB.Bun
	n, err := models.GetNotification(ctx, db, job.Args.NotificationID)
	if errors.Is(err, models.ErrNotFound) {
		return nil // its channel was deleted
	} else if err != nil {
		return err
	}
	if n.State != models.DeliveryPending || n.ChannelID == nil {
		return nil
	}
	ch, err := models.GetChannel(ctx, db, *n.ChannelID)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	if ch, err = w.deps.Config.Notify.Secrets.Opened(ch); err != nil {
		return models.MarkDelivery(ctx, db, n.ID, models.DeliveryDead, err.Error(), w.deps.Now())
	}
	// One delivery of a channel at a time (a transaction-scoped advisory
	// lock), so the rate limit holds with many workers and replicas.
	var retry error
	err = w.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(13, ?)`, int32(ch.ID)); err != nil {
			return fmt.Errorf("jobs: lock channel %d: %w", ch.ID, err)
		}
		if n, err = models.GetNotification(ctx, tx, n.ID); err != nil || n.State != models.DeliveryPending {
			return err
		}
		now := w.deps.Now()
		if n.UserID != nil {
			prefs, err := models.GetPrefs(ctx, tx, *n.UserID)
			if err != nil {
				return err
			}
			if quiet, until := prefs.Quiet(now); quiet {
				return river.JobSnooze(until.Sub(now))
			}
		}
		sent, err := models.DeliveredSince(ctx, tx, ch.ID, now.Add(-time.Minute))
		if err != nil {
			return err
		}
		if sent >= ch.RatePerMinute {
			return river.JobSnooze(time.Minute / time.Duration(ch.RatePerMinute))
		}
		p := n.Payload
		p.DeliveryID = n.ID
		p.Path = pages.Notification(pages.Subject{Event: n.Event, JobID: p.JobID(), BookingID: p.BookingID()})
		p.URL = w.deps.Config.Notify.BaseURL + p.Path
		sendErr := w.sender().send(ctx, ch, &p)
		if sendErr == nil {
			return models.MarkDelivery(ctx, tx, n.ID, models.DeliveryDelivered, "", w.deps.Now())
		}
		var perm permanentError
		if errors.As(sendErr, &perm) || job.Attempt >= job.MaxAttempts {
			w.deps.Logger.Warn("notification dead", "notification", n.ID, "event", n.Event, "channel", ch.ID, "type", ch.Type, "attempt", job.Attempt, "err", sendErr)
			return models.MarkDelivery(ctx, tx, n.ID, models.DeliveryDead, sendErr.Error(), w.deps.Now())
		}
		retry = sendErr
		return models.MarkDelivery(ctx, tx, n.ID, models.DeliveryPending, sendErr.Error(), w.deps.Now())
	})
	if err != nil {
		return err
	}
	return retry
}
