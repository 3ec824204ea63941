package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// runsUntilStopped is a node executor whose runs end only when the test
// says so (Finish): a stop is asked of the run, never ends it at once.
type runsUntilStopped struct{}

func (runsUntilStopped) Hand(context.Context, *models.Tx, *models.Job, []models.JobGPU, time.Time) (models.Handover, error) {
	return models.Handover{Taken: true, Detail: "sent to its node"}, nil
}

func (runsUntilStopped) Stop(context.Context, *models.Tx, *models.Job, time.Duration, time.Time) (bool, error) {
	return false, nil
}

// Every way a session ends that its owner did not ask for is told to them
// once, as session.stopped (and not also as a job.* event), with the reason
// in words and the node and working directory its files stay in, written
// in the transaction that ends it with the River job that delivers it over
// the owner's webhook; the owner's own stop and the idle policy's (told
// when it is asked) are not told here.
func TestSessionEndsAreTold(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	owner := testdb.User(t, db, models.RoleMember)
	admin := testdb.User(t, db, models.RoleAdmin)
	node, gpus := testdb.Node(t, db, 1)
	hook := &models.NotificationChannel{UserID: &owner.ID, Type: models.KindWebhook, Target: "https://hooks.example.com/sessions"}
	if err := models.CreateChannel(ctx, db.Bun, hook); err != nil {
		t.Fatal(err)
	}
	lc := &models.Lifecycle{Executors: map[string]models.Executor{models.ExecutorNode: runsUntilStopped{}}}
	code := func(n int) *int { return &n }
	stop := func(r models.StopRequest) func(context.Context, *models.Tx, *models.LockedJob, time.Time) error {
		return func(ctx context.Context, tx *models.Tx, j *models.LockedJob, now time.Time) error {
			if err := lc.RequestStop(ctx, tx, j, r, now); err != nil {
				return err
			}
			return lc.Finish(ctx, tx, j, models.RunEnd{Stopped: true, ExitCode: code(143), Signal: "SIGTERM"}, now)
		}
	}
	ends := func(e models.RunEnd) func(context.Context, *models.Tx, *models.LockedJob, time.Time) error {
		return func(ctx context.Context, tx *models.Tx, j *models.LockedJob, now time.Time) error {
			return lc.Finish(ctx, tx, j, e, now)
		}
	}
	cases := []struct {
		name     string
		start    bool // the server answered (the run started) before the end
		end      func(context.Context, *models.Tx, *models.LockedJob, time.Time) error
		state    string
		told     bool
		title    string // in the title
		reason   string // in the reason
		requeued bool
	}{
		{"time limit", true, stop(models.StopRequest{Kind: models.StopTimeLimit, Reason: "reached its time limit of 1h"}),
			models.JobTimeout, true, "reached its time limit", "time limit of 1h", false},
		{"admin", true, stop(models.StopRequest{Kind: models.StopCancel, Reason: "canceled by " + admin.Email, By: &admin.ID}),
			models.JobCanceled, true, "stopped by an admin", admin.Email, false},
		{"preempted", true, stop(models.StopRequest{Kind: models.StopPreempt, Reason: "preempted for job 7 (priority)", ForJobID: 7, Rule: models.PreemptRulePriority}),
			models.JobQueued, true, "put back in the queue", "preempted for job 7", true},
		{"node lost", true, ends(models.RunEnd{Lost: true, Reason: "its node went down"}),
			models.JobFailed, true, "ended unexpectedly", "its node went down", false},
		{"failed to start", false, ends(models.RunEnd{Refused: "its server did not start: jupyter-notebook: not found"}),
			models.JobFailed, true, "could not start", "did not start", false},
		{"crashed", true, ends(models.RunEnd{ExitCode: code(1)}),
			models.JobFailed, true, "ended unexpectedly", "exited with code 1", false},
		{"exited", true, ends(models.RunEnd{ExitCode: code(0)}),
			models.JobCompleted, true, "its server exited", "code 0", false},
		{"system stop", true, stop(models.StopRequest{Kind: models.StopCancel, Reason: "uses 30 GiB of its 10 GiB share"}),
			models.JobCanceled, true, "was stopped", "10 GiB share", false},
		{"owner's stop", true, stop(models.StopRequest{Kind: models.StopCancel, Reason: "canceled by " + owner.Email, By: &owner.ID}),
			models.JobCanceled, false, "", "", false},
		{"idle policy", true, stop(models.StopRequest{Kind: models.StopReclaim, Reason: "reclaimed: idle for 1h"}),
			models.JobCanceled, false, "", "", false},
	}
	now := testdb.Now
	for _, tc := range cases {
		now = now.Add(time.Minute)
		j := &models.Job{Name: "nb", OwnerID: owner.ID, GPUCount: 1, JobType: models.SessionJobTypePrefix + models.SessionJupyter,
			Executor: models.ExecutorNode, Workdir: "/data/nb-" + strings.ReplaceAll(tc.name, " ", "-"), Preemptible: true}
		if err := models.CreateJob(ctx, db.Pool, j, now); err != nil {
			t.Fatal(err)
		}
		if err := models.CreateInteractive(ctx, db.Bun, j.ID, models.SessionJupyter, now); err != nil {
			t.Fatal(err)
		}
		step := func(f func(ctx context.Context, tx *models.Tx, lj *models.LockedJob) error) {
			t.Helper()
			if err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
				lj, err := lc.Lock(ctx, tx, j.ID)
				if err != nil {
					return err
				}
				return f(ctx, tx, lj)
			}); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		step(func(ctx context.Context, tx *models.Tx, lj *models.LockedJob) error {
			return lc.Place(ctx, tx, lj, models.Placement{GPUIDs: gpus, Reason: "placed by the test"}, now)
		})
		if tc.start {
			step(func(ctx context.Context, tx *models.Tx, lj *models.LockedJob) error {
				return lc.Started(ctx, tx, lj, "its server answers", now)
			})
		}
		step(func(ctx context.Context, tx *models.Tx, lj *models.LockedJob) error {
			return tc.end(ctx, tx, lj, now.Add(time.Second))
		})

		got, err := models.GetJob(ctx, db.Bun, j.ID)
		if err != nil || got.State != tc.state {
			t.Fatalf("%s: state %v (%v), want %s", tc.name, got, err, tc.state)
		}
		var rows []struct {
			Event  string `bun:"event"`
			Title  string `bun:"title"`
			Reason string `bun:"reason"`
			Text   string `bun:"text"`
		}
		if err := db.Bun.NewRaw(`SELECT event, payload->>'title' AS title, coalesce(payload->>'reason', '') AS reason,
			coalesce(payload->>'text', '') AS text FROM notifications
			WHERE user_id = ? AND channel_type = 'in_app' AND (payload->'job'->>'id')::bigint = ? AND event <> ?`,
			owner.ID, j.ID, models.EventJobStarted).Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		if !tc.told {
			if len(rows) != 0 {
				t.Errorf("%s: told %+v, want nothing", tc.name, rows)
			}
			continue
		}
		if len(rows) != 1 || rows[0].Event != models.EventSessionStopped {
			t.Errorf("%s: told %+v, want one session.stopped", tc.name, rows)
			continue
		}
		r := rows[0]
		if !strings.Contains(r.Title, tc.title) || !strings.Contains(r.Reason, tc.reason) {
			t.Errorf("%s: title %q reason %q, want %q and %q in them", tc.name, r.Title, r.Reason, tc.title, tc.reason)
		}
		if !strings.Contains(r.Text, "node "+node.Name+" in "+j.Workdir) {
			t.Errorf("%s: text %q does not say the files stay on %s in %s", tc.name, r.Text, node.Name, j.Workdir)
		}
		// Delivered over the webhook by a River job written with the end.
		var queued int
		if err := db.Bun.NewRaw(`SELECT count(*) FROM river_job rj JOIN notifications n ON n.id = (rj.args->>'notification_id')::bigint
			WHERE rj.kind = 'notify_deliver' AND n.event = ? AND n.channel_id = ? AND (n.payload->'job'->>'id')::bigint = ?`,
			models.EventSessionStopped, hook.ID, j.ID).Scan(ctx, &queued); err != nil || queued != 1 {
			t.Errorf("%s: %d delivery jobs for the webhook (%v), want 1", tc.name, queued, err)
		}
		if strings.Contains(r.Text, "back in the queue") != tc.requeued {
			t.Errorf("%s: text %q, requeued %v", tc.name, r.Text, tc.requeued)
		}
		if tc.requeued { // leave the GPU free for the next case
			step(func(ctx context.Context, tx *models.Tx, lj *models.LockedJob) error {
				return lc.RequestStop(ctx, tx, lj, models.StopRequest{Kind: models.StopCancel, Reason: "done", By: &owner.ID}, now)
			})
		}
	}
}

// A queued session canceled, one at a time or in bulk, is told as the
// ends of a started one are: an admin's cancel as session.stopped (never
// job.canceled), the owner's not at all.
func TestQueuedSessionCancelsAreTold(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	owner := testdb.User(t, db, models.RoleMember)
	admin := testdb.User(t, db, models.RoleAdmin)
	lc := &models.Lifecycle{}
	queued := func() int64 {
		j := &models.Job{Name: "nb", OwnerID: owner.ID, GPUCount: 1, JobType: models.SessionJobTypePrefix + models.SessionTensorBoard,
			Executor: models.ExecutorNode}
		if err := models.CreateJob(ctx, db.Pool, j, testdb.Now); err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	for _, tc := range []struct {
		name string
		by   *models.User
		bulk bool
		told bool
	}{
		{"admin, one", admin, false, true}, {"admin, bulk", admin, true, true},
		{"owner, one", owner, false, false}, {"owner, bulk", owner, true, false},
	} {
		id := queued()
		r := models.StopRequest{Kind: models.StopCancel, Reason: "canceled by " + tc.by.Email, By: &tc.by.ID}
		err := db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			j, err := lc.Lock(ctx, tx, id)
			if err != nil {
				return err
			}
			if tc.bulk {
				_, err = lc.CancelQueued(ctx, tx, []*models.LockedJob{j}, r, testdb.Now)
				return err
			}
			return lc.RequestStop(ctx, tx, j, r, testdb.Now)
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var events []string
		if err := db.Bun.NewRaw(`SELECT event FROM notifications WHERE user_id = ? AND (payload->'job'->>'id')::bigint = ?`, owner.ID, id).
			Scan(ctx, &events); err != nil {
			t.Fatal(err)
		}
		want := []string(nil)
		if tc.told {
			want = []string{models.EventSessionStopped}
		}
		if strings.Join(events, ",") != strings.Join(want, ",") {
			t.Errorf("%s: told %v, want %v", tc.name, events, want)
		}
		if tc.told {
			var text string
			if err := db.Bun.NewRaw(`SELECT payload->>'text' FROM notifications WHERE user_id = ? AND (payload->'job'->>'id')::bigint = ?`, owner.ID, id).
				Scan(ctx, &text); err != nil || !strings.Contains(text, "had not started") {
				t.Errorf("%s: text %q (%v), want it to say it had not started", tc.name, text, err)
			}
		}
	}
}
