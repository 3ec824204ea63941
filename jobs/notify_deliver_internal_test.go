package jobs

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// deliveryAtReceiver is what a webhook receiver saw while it handled a
// delivery: the body, and the database as it was at that moment.
type deliveryAtReceiver struct {
	body map[string]any
	// openTx counts the test database's backends idle in a transaction;
	// channelLocks the advisory locks held on channels.
	openTx, channelLocks int
}

// A delivery is claimed in one transaction and recorded in another: while
// the receiver handles the request, no transaction of the database is open
// and no channel lock is held. Receivers still get the page's path and URL,
// which the stored row does not hold.
func TestNotifyDeliverSendsOutsideTransactions(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		status    int
		wantState string
		wantErr   bool
	}{
		"delivered":         {status: http.StatusOK, wantState: models.DeliveryDelivered},
		"retried after 5xx": {status: http.StatusServiceUnavailable, wantState: models.DeliveryPending, wantErr: true},
		"dead after 4xx":    {status: http.StatusGone, wantState: models.DeliveryDead},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			db := testdb.New(t)
			owner := testdb.User(t, db, models.RoleMember)
			seen := make(chan deliveryAtReceiver, 1)
			recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var at deliveryAtReceiver
				raw, _ := io.ReadAll(r.Body)
				if err := json.Unmarshal(raw, &at.body); err != nil {
					t.Errorf("body is not JSON: %s", raw)
				}
				err := db.Pool.QueryRow(r.Context(), `SELECT
					(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'),
					(SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
						WHERE d.datname = current_database() AND l.locktype = 'advisory' AND l.classid = 13)`).
					Scan(&at.openTx, &at.channelLocks)
				if err != nil {
					t.Errorf("look at the database: %v", err)
				}
				seen <- at
				w.WriteHeader(tc.status)
			}))
			t.Cleanup(recv.Close)

			now := time.Now()
			ch := &models.NotificationChannel{UserID: &owner.ID, Type: models.KindWebhook, Target: recv.URL, CreatedAt: now}
			if err := models.CreateChannel(ctx, db.Bun, ch); err != nil {
				t.Fatal(err)
			}
			err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
				return models.Emit(ctx, tx, models.NotifyEvent{Name: models.EventJobFinished, Subject: "job:42", Users: []int64{owner.ID},
					Payload: models.EventPayload{Title: "Job train finished", Job: &models.EventJob{ID: 42, Name: "train", State: models.JobCompleted, GPUs: []string{}}}}, now)
			})
			if err != nil {
				t.Fatal(err)
			}
			var id int64
			var storedPath, queued bool
			if err := db.Bun.NewRaw(`SELECT n.id, n.payload->'path' IS NOT NULL,
				EXISTS (SELECT 1 FROM river_job j WHERE j.kind = 'notify_deliver' AND (j.args->>'notification_id')::bigint = n.id)
				FROM notifications n WHERE n.channel_id = ?`, ch.ID).Scan(ctx, &id, &storedPath, &queued); err != nil {
				t.Fatal(err)
			}
			if storedPath || !queued {
				t.Fatalf("stored payload holds a path: %v; delivery job queued with the row: %v", storedPath, queued)
			}

			cfg := NotifyConfig{BaseURL: "https://gpus.example", AllowPrivateTargets: true}
			w := &NotifyDeliverWorker{deps: &Deps{DB: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now,
				Config: Config{Notify: cfg}}, sender: func() *sender { return newSender(cfg) }}
			job := &river.Job[models.NotifyDeliverArgs]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 6},
				Args: models.NotifyDeliverArgs{NotificationID: id}}
			if err := w.Work(ctx, job); (err != nil) != tc.wantErr {
				t.Fatalf("Work: %v, want an error: %v", err, tc.wantErr)
			}

			var at deliveryAtReceiver
			select {
			case at = <-seen:
			default:
				t.Fatal("the receiver was not called")
			}
			if at.openTx != 0 || at.channelLocks != 0 {
				t.Errorf("during the send: %d transactions open, %d channel locks held; want none", at.openTx, at.channelLocks)
			}
			if at.body["path"] != "/jobs/42" || at.body["url"] != "https://gpus.example/jobs/42" || at.body["delivery_id"] != float64(id) {
				t.Errorf("delivered path %v, url %v, delivery_id %v", at.body["path"], at.body["url"], at.body["delivery_id"])
			}
			n, err := models.GetNotification(ctx, db.Bun, id)
			if err != nil {
				t.Fatal(err)
			}
			if n.State != tc.wantState || n.Attempts != 1 || n.ClaimedAt == nil {
				t.Errorf("after the attempt: state %s, attempts %d, claimed at %v; want %s, 1, set", n.State, n.Attempts, n.ClaimedAt, tc.wantState)
			}
		})
	}
}
