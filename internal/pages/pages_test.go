package pages_test

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/pages"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Every event of the catalogue leads to a page of its own, the one its
// emitter records the subject of; none falls through to the list.
func TestNotificationPages(t *testing.T) {
	t.Parallel()
	job := func(e string) pages.Subject { return pages.Subject{Event: e, JobID: 42} }
	booking := func(e string) pages.Subject { return pages.Subject{Event: e, BookingID: 7} }
	bare := func(e string) pages.Subject { return pages.Subject{Event: e} }
	cases := map[string]struct {
		subject pages.Subject
		want    string
	}{
		models.EventJobStarted:        {job(models.EventJobStarted), "/jobs/42"},
		models.EventJobFinished:       {job(models.EventJobFinished), "/jobs/42"},
		models.EventJobFailed:         {job(models.EventJobFailed), "/jobs/42"},
		models.EventJobCanceled:       {job(models.EventJobCanceled), "/jobs/42"},
		models.EventJobPreempted:      {job(models.EventJobPreempted), "/jobs/42"},
		models.EventJobTimeout:        {job(models.EventJobTimeout), "/jobs/42"},
		models.EventJobWaitingLong:    {job(models.EventJobWaitingLong), "/jobs/42"},
		models.EventBookingStart:      {booking(models.EventBookingStart), "/bookings"},
		models.EventBookingEnded:      {booking(models.EventBookingEnded), "/bookings"},
		models.EventBookingClashed:    {booking(models.EventBookingClashed), "/bookings/7"},
		models.EventHoldExpired:       {booking(models.EventHoldExpired), "/bookings"},
		models.EventGPUIdle:           {job(models.EventGPUIdle), "/jobs/42"},
		models.EventGPUReclaimed:      {job(models.EventGPUReclaimed), "/jobs/42"},
		models.EventJobMemoryOver:     {job(models.EventJobMemoryOver), "/jobs/42"},
		models.EventNodeDown:          {bare(models.EventNodeDown), "/admin/nodes"},
		models.EventNodeUp:            {bare(models.EventNodeUp), "/admin/nodes"},
		models.EventInvariantRepaired: {bare(models.EventInvariantRepaired), "/admin"},
		models.EventTest:              {bare(models.EventTest), "/settings/notifications"},
		models.EventSessionReady:      {job(models.EventSessionReady), "/s/42/"},
		models.EventSessionIdle:       {job(models.EventSessionIdle), "/s/42/"},
		models.EventSessionStopped:    {job(models.EventSessionStopped), "/sessions"},
	}
	for _, e := range append([]string{models.EventTest}, models.Events...) {
		if _, ok := cases[e]; !ok {
			t.Errorf("event %s has no page here: add it to pages.Notification and to this table", e)
		}
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := pages.Notification(tc.subject); got != tc.want {
				t.Errorf("pages.Notification(%+v) = %q, want %q", tc.subject, got, tc.want)
			}
		})
	}
	if got := pages.Notification(bare("something.new")); got != pages.Notifications {
		t.Errorf("an event without a page leads to %q, want the list", got)
	}
}
