package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// berlinFixture is a cluster seen by ana, an admin whose Settings → Time
// zone is Europe/Berlin while the server and the API speak UTC.
type berlinFixture struct {
	s      *testserver.Server
	berlin *time.Location
	ana    *models.User
	anaTok string
	anaWeb *http.Client // ana's browser session
	bobTok string       // another admin
	// carl holds both GPUs from clash to clash+2h (09:00 in Berlin).
	clash time.Time
	// anaBooking is ana's own booking, from mine to mine+1h.
	anaBooking int64
	mine       time.Time
	lease      int64 // ana's idle lease
	// carlNow is carl's booking of the free GPU for the next three hours.
	carlNow int64
	recv    *webhookReceiver
}

// newBerlinFixture builds the cluster: an idle node of 2 GPUs, ana's idle
// lease (gpu.idle, told in the app and to her webhook), carl's booking of
// both GPUs, ana's booking, which bob (an admin) moves (booking.clashed),
// and a job of ana's that waits (job.waiting_long, with its expected start).
func newBerlinFixture(t *testing.T) *berlinFixture {
	t.Helper()
	ctx := context.Background()
	f := &berlinFixture{s: testserver.New(t)}
	s := f.s
	var err error
	if f.berlin, err = localtime.Load("Europe/Berlin"); err != nil {
		t.Fatal(err)
	}
	startIdleNode(t, s, "1x2:H100-80GB")
	f.bobTok, _ = s.UserToken(t, models.RoleAdmin)
	putIdlePolicy(t, s, f.bobTok, map[string]any{"idle_action": "release", "idle_after": "1s", "idle_grace": "24h"})

	f.ana = testdb.User(t, s.DB, models.RoleAdmin)
	if _, err := models.SetUserTimeZone(ctx, s.DB.Bun, f.ana.ID, "Europe/Berlin", false); err != nil {
		t.Fatal(err)
	}
	if f.anaTok, _, err = models.CreateUserToken(ctx, s.DB.Bun, f.ana.ID, "test", nil); err != nil {
		t.Fatal(err)
	}
	f.anaWeb = s.Login(t, f.ana.Email)
	f.recv = newWebhookReceiver(t, func(int32) int { return 200 })
	ch := addChannel(t, s, f.anaTok, `{"type":"webhook","url":"`+f.recv.URL+`"}`)
	f.recv.secret.Store(ch.Secret)

	st, b := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", f.anaTok, `{"job_id":"notebook","gpu_count":1,"timeout_s":20,"name":"notebook"}`)
	if st != http.StatusOK {
		t.Fatalf("ana's lease: %d %s", st, b)
	}
	var lease api.Allocation
	mustJSON(t, b, &lease)
	f.lease = lease.ID

	day := localtime.StartOfDay(time.Now(), f.berlin).AddDate(0, 0, 3)
	f.clash = localtime.At(day, 9, 0, f.berlin)
	carlTok, _ := s.UserToken(t, models.RoleMember)
	f.book(t, carlTok, f.clash, f.clash.Add(2*time.Hour), 2)
	f.mine = localtime.At(day.AddDate(0, 0, 1), 9, 0, f.berlin)
	f.anaBooking = f.book(t, f.anaTok, f.mine, f.mine.Add(time.Hour), 1)
	// bob moves ana's booking by an hour: she is told, with its new window.
	moved := fmt.Sprintf(`{"starts_at":%q,"ends_at":%q}`, f.mine.Add(time.Hour).UTC().Format(time.RFC3339), f.mine.Add(2*time.Hour).UTC().Format(time.RFC3339))
	if st, b := s.Do(t, "PATCH", fmt.Sprintf("/api/v1/bookings/%d", f.anaBooking), f.bobTok, moved); st != http.StatusOK {
		t.Fatalf("bob moves ana's booking: %d %s", st, b)
	}
	f.mine = f.mine.Add(time.Hour)

	f.waitingJob(t)
	// carl holds the free GPU for the next three hours: ana's small job
	// waits for his booking to end, and the queue says until when.
	f.carlNow = f.book(t, carlTok, time.Now(), time.Now().Add(3*time.Hour), 1)
	small := &models.Job{Name: "small-train", OwnerID: f.ana.ID, GPUCount: 1, Executor: models.ExecutorLease}
	if err := models.CreateJob(ctx, s.DB.Pool, small, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the queue to say why small-train waits", func() bool {
		var code string
		_ = s.DB.Bun.NewSelect().Table("jobs").Column("pending_code").Where("id = ?", small.ID).Scan(ctx, &code)
		return code == scheduler.ReasonBooked
	})
	waitFor(t, "gpu.idle for ana", func() bool {
		n, err := s.DB.Bun.NewSelect().Model((*models.Notification)(nil)).
			Where("user_id = ? AND event = ? AND channel_type = ?", f.ana.ID, models.EventGPUIdle, models.KindInApp).Count(ctx)
		return err == nil && n > 0
	})
	return f
}

// book books n GPUs from start to end with tok and returns the booking's id.
func (f *berlinFixture) book(t *testing.T, tok string, start, end time.Time, n int) int64 {
	t.Helper()
	st, b := f.s.Do(t, "POST", "/api/v1/bookings", tok, zoneBookingBody(start, end, n))
	if st != http.StatusCreated {
		t.Fatalf("book %v: %d %s", start, st, b)
	}
	var out api.Booking
	mustJSON(t, b, &out)
	return out.ID
}

func zoneBookingBody(start, end time.Time, n int) string {
	return fmt.Sprintf(`{"gpu_count":%d,"starts_at":%q,"ends_at":%q,"note":"zone sweep"}`, n,
		start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339))
}

// waitingJob queues a job of ana's for 2 GPUs (one is hers already) and
// tells her it has waited long, with its expected start.
func (f *berlinFixture) waitingJob(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	j := &models.Job{Name: "big-train", OwnerID: f.ana.ID, GPUCount: 2, Executor: models.ExecutorLease}
	if err := models.CreateJob(ctx, f.s.DB.Pool, j, now.Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	err := f.s.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		if _, err := tx.NewUpdate().Model((*models.Job)(nil)).Set("estimated_start_at = ?", f.clash.Add(-time.Hour)).
			Set("pending_reason = ?", "waiting for GPUs").Where("id = ?", j.ID).Exec(ctx); err != nil {
			return err
		}
		return models.EmitWaitingLong(ctx, tx, time.Hour, now)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stamp is how ana reads t: "Thu 3 Dec 09:00 CET".
func (f *berlinFixture) stamp(t time.Time) string { return localtime.Stamp(t, f.berlin) }

// day is the clash's day in Berlin, as a form's date and a series' weekday.
func (f *berlinFixture) day() (date, weekday string) {
	d := f.clash.In(f.berlin)
	return d.Format("2006-01-02"), strings.ToLower(d.Weekday().String()[:3])
}
