package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// calendarCluster is 2 nodes × 8 GPUs and 15 members.
func calendarCluster(b *testing.B) (*testserver.Server, []*models.User, string) {
	s := withNodes(b, 2, 8)
	var users []*models.User
	var admin string
	for i := range 15 {
		role := models.RoleMember
		if i == 0 {
			role = models.RoleAdmin
		}
		tok, u := s.UserToken(b, role)
		if i == 0 {
			admin = tok
		}
		users = append(users, u)
	}
	return s, users, admin
}

// BenchmarkCalendarFeed serves the team feed (/calendar/{token}.ics) with
// 200 bookings over the next four weeks, 16 GPUs.
func BenchmarkCalendarFeed(b *testing.B) {
	s, users, _ := calendarCluster(b)
	ctx := context.Background()
	start := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
	for i := range 200 {
		bk := &models.Booking{UserID: users[i%len(users)].ID, Kind: models.BookingKindBooking, GPUCount: 1 + i%4, GPUModel: "H100",
			StartsAt: start.Add(time.Duration(i*3) * time.Hour), EndsAt: start.Add(time.Duration(i*3+8) * time.Hour),
			Note: fmt.Sprintf("run %d", i), Source: "bench", Sequence: i % 3}
		if _, err := s.DB.Bun.NewInsert().Model(bk).Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var token string
	err := s.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		var err error
		token, _, err = models.RegenerateFeed(ctx, tx, users[1].ID, models.FeedTeam, time.Now())
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	url := s.URL + "/calendar/" + token + ".ics"
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.Count(string(body), "BEGIN:VEVENT") != 200 {
			b.Fatalf("feed: %d, %d events", resp.StatusCode, strings.Count(string(body), "BEGIN:VEVENT"))
		}
	}
}

// BenchmarkImportDryRun checks a 30-row sheet (the acceptance's size) in a
// dry run: parse, owners, GPUs, fingerprints, clashes with the stored
// bookings and the earlier rows.
func BenchmarkImportDryRun(b *testing.B) {
	s, users, admin := calendarCluster(b)
	day := time.Now().UTC().AddDate(0, 0, 1)
	var sb strings.Builder
	sb.WriteString("email,gpus,gpu_model,node,gpu_ids,start,end,note\n")
	for i := range 30 {
		d := day.AddDate(0, 0, i/6).Format("2006-01-02")
		if i%3 == 0 {
			fmt.Fprintf(&sb, "%s,,,node-%d,%d;%d,%s %02d:00,%s %02d:00,named\n", users[i%15].Email, i%2, i%8, (i+1)%8, d, 8+i%6, d, 12+i%6)
		} else {
			fmt.Fprintf(&sb, "%s,2,H100,,,%s %02d:00,%s %02d:00,row %d\n", users[i%15].Email, d, 8+i%6, d, 10+i%6, i)
		}
	}
	sheet := sb.String()
	b.ResetTimer()
	for b.Loop() {
		req, _ := newReq("POST", s.URL+"/api/v1/bookings/import?dry_run=true&tz=Europe/Berlin", sheet, admin, "text/csv")
		resp, err := s.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"dry_run":true`) {
			b.Fatalf("dry run: %d %s", resp.StatusCode, body)
		}
	}
}
