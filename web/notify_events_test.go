package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/handlers"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func inAppEvents(t *testing.T, s *testserver.Server, tok string) map[string]int {
	t.Helper()
	_, b := s.Do(t, "GET", "/api/v1/notifications", tok, "")
	var inbox handlers.NotificationsJSON
	mustJSON(t, b, &inbox)
	out := map[string]int{}
	for _, n := range inbox.Notifications {
		out[n.Event]++
	}
	return out
}

// Events that time or the cluster make: a booking about to start, a job
// waiting long, a node going down and coming back. Each is told once.
func TestNotifyTimedAndNodeEvents(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana, anaUser := s.UserToken(t, models.RoleMember)
	admin, _ := s.UserToken(t, models.RoleAdmin)
	ctx := context.Background()
	now := time.Now()

	if st, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", admin, `{"gpu_count":8,"timeout_s":5}`); st != 200 {
		t.Fatalf("admin's lease: %d %s", st, body)
	}
	if st, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", ana, `{"gpu_count":8,"timeout_s":0.1}`); st != 202 {
		t.Fatalf("a lease that cannot start: %d %s", st, body)
	}
	b := &models.Booking{UserID: anaUser.ID, Kind: models.BookingKindBooking, GPUCount: 2, GPUModel: "H100",
		StartsAt: now.Add(10 * time.Minute), EndsAt: now.Add(2 * time.Hour), Source: "test"}
	if err := models.CreateBooking(ctx, s.DB.Bun, b, nil, 5, now); err != nil {
		t.Fatal(err)
	}
	for range 2 { // twice: told once
		if err := s.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
			if err := models.EmitBookingTimes(ctx, tx, 15*time.Minute, now); err != nil {
				return err
			}
			return models.EmitWaitingLong(ctx, tx, 0, now.Add(time.Second))
		}); err != nil {
			t.Fatal(err)
		}
	}
	if got := inAppEvents(t, s, ana); got[models.EventBookingStart] != 1 || got[models.EventJobWaitingLong] != 1 {
		t.Fatalf("ana's notifications %v", got)
	}

	// The node stops beating: down for admins; its next heartbeat: up.
	if _, err := s.DB.Bun.NewRaw("UPDATE nodes SET last_heartbeat_at = now() - interval '1 hour'").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := jobs.SweepNodes(ctx, *s.Deps); err != nil {
		t.Fatal(err)
	}
	nodeTok, node := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", fmt.Sprintf("/api/v1/nodes/%d/heartbeat", node.ID), nodeTok, `{"gpus":[]}`); st != 200 {
		t.Fatalf("heartbeat: %d %s", st, body)
	}
	if got := inAppEvents(t, s, admin); got[models.EventNodeDown] != 1 || got[models.EventNodeUp] != 1 {
		t.Fatalf("admin's notifications %v", got)
	}
	if got := inAppEvents(t, s, ana); got[models.EventNodeDown] != 0 {
		t.Fatalf("a member got node events: %v", got)
	}
}

// Admin → Notifications lists the team channel (redacted) and dead deliveries.
func TestAdminNotificationsPage(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	if err := models.EnsureTeamChannel(t.Context(), s.DB.Bun, s.Handlers.Secrets, models.KindSlack, "https://hooks.slack.com/services/T0/B0/teamsecret"); err != nil {
		t.Fatal(err)
	}
	admin := s.Login(t, "root@example.com")
	if _, err := s.DB.Bun.NewRaw("UPDATE users SET role = 'admin' WHERE email = 'root@example.com'").Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, body := fetchPage(t, s, admin, "/admin/notifications")
	if st != 200 || !strings.Contains(body, "https://hooks.slack.com/services/") || strings.Contains(body, "teamsecret") {
		t.Fatalf("admin notifications page: %d\n%s", st, body)
	}
}
