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

// NotifyDeliverWorker delivers one notification over its channel, the last
// step of a notification's way (models.Emit wrote the row and this job in
// the state change's transaction). It claims the delivery in a short
// transaction (models.ClaimDelivery: quiet hours and the channel's rate
// limit make it wait, as a snooze), sends with no transaction open
// (sender: webhook, Slack or email), then records the outcome: 5xx, 429
// and timeouts are retried with backoff; after the last try, or on an
// error no retry can fix, the delivery is dead with its reason kept for
// the user and the admin. Deliveries are at least once: a worker that dies
// after sending and before recording sends again on River's retry.
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

// recordTimeout bounds the transaction that records an outcome, which runs
// even when the send used up the job's own deadline.
const recordTimeout = 10 * time.Second

// Work delivers the notification once: claim, send, record.
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
		return models.RecordDelivery(ctx, db, n.ID, models.DeliveryDead, err.Error(), w.deps.Now())
	}
	var claim models.DeliveryClaim
	err = w.deps.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		claim, err = models.ClaimDelivery(ctx, tx, n.ID, ch, w.deps.Now())
		return err
	})
	switch {
	case err != nil:
		return err
	case claim.Wait > 0:
		return river.JobSnooze(claim.Wait)
	case claim.Notification == nil:
		return nil
	}
	n = claim.Notification
	loc, err := models.RecipientZone(ctx, db, n.UserID)
	if err != nil {
		return err
	}
	p := n.Payload.In(loc) // worded for its recipient
	p.DeliveryID = n.ID
	p.Path = pages.Notification(pages.Subject{Event: n.Event, JobID: p.JobID(), BookingID: p.BookingID()})
	p.URL = w.deps.Config.Notify.BaseURL + p.Path
	sendErr := w.sender().send(ctx, ch, &p)

	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if sendErr == nil {
		return models.RecordDelivery(rctx, db, n.ID, models.DeliveryDelivered, "", w.deps.Now())
	}
	var perm permanentError
	if errors.As(sendErr, &perm) || job.Attempt >= job.MaxAttempts {
		w.deps.Logger.Warn("notification dead", "notification", n.ID, "event", n.Event, "channel", ch.ID, "type", ch.Type, "attempt", job.Attempt, "err", sendErr, "cause", Cause(sendErr))
		return models.RecordDelivery(rctx, db, n.ID, models.DeliveryDead, sendErr.Error(), w.deps.Now())
	}
	if err := models.RecordDelivery(rctx, db, n.ID, models.DeliveryPending, sendErr.Error(), w.deps.Now()); err != nil {
		return errors.Join(sendErr, err)
	}
	return sendErr
}
