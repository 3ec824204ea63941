package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/localtime"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BenchmarkCalendarPage: GET /bookings (the week view, by GPU) with 16 GPUs
// on 2 nodes and 200 bookings in the week from 15 people, half of them
// naming GPUs and half by count, seen from Europe/Berlin. Each latency is
// the server's time for the page over loopback, one request at a time.
func BenchmarkCalendarPage(b *testing.B) {
	s := withNodes(b, 2, 8)
	ctx := context.Background()
	var owners []*models.User
	for range 15 {
		_, u := s.UserToken(b, models.RoleMember)
		owners = append(owners, u)
	}
	var gpuIDs []int64
	if err := s.DB.Bun.NewSelect().Table("gpus").Column("id").Order("id").Scan(ctx, &gpuIDs); err != nil || len(gpuIDs) != 16 {
		b.Fatalf("%d GPUs (%v)", len(gpuIDs), err)
	}
	berlin, _ := localtime.Load("Europe/Berlin")
	day := localtime.StartOfDay(time.Now(), berlin)
	for i := range 200 {
		// 14 half-days × 16 GPUs: booking i takes half-day i/16 of GPU i%16,
		// some of them a whole day.
		start := day.Add(time.Duration(i%14) * 12 * time.Hour).Add(time.Duration(i%3) * time.Hour)
		length := time.Duration(4+i%9) * time.Hour
		bk := &models.Booking{UserID: owners[i%len(owners)].ID, Kind: models.BookingKindBooking, GPUCount: 1 + i%2,
			StartsAt: start, EndsAt: start.Add(length), Note: fmt.Sprintf("experiment %d: ablation of the tokenizer", i), Source: "bench"}
		if _, err := s.DB.Bun.NewInsert().Model(bk).Exec(ctx); err != nil {
			b.Fatal(err)
		}
		if i%2 == 0 {
			for k := range bk.GPUCount {
				if _, err := s.DB.Bun.NewRaw("INSERT INTO booking_gpus (booking_id, gpu_id) VALUES (?, ?)", bk.ID, gpuIDs[(i/14+k)%16]).Exec(ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if _, err := models.SetUserTimeZone(ctx, s.DB.Bun, owners[0].ID, "Europe/Berlin", false); err != nil {
		b.Fatal(err)
	}
	browser := s.Login(b, owners[0].Email)
	get := func() int64 {
		resp, err := browser.Get(s.URL + "/bookings")
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET /bookings: %d", resp.StatusCode)
		}
		return n
	}
	for range 20 {
		get()
	}
	lat := make([]time.Duration, 0, b.N)
	var size int64
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		size = get()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(ms(lat, 0.50), "p50-ms")
	b.ReportMetric(ms(lat, 0.95), "p95-ms")
	b.ReportMetric(ms(lat, 0.99), "p99-ms")
	b.ReportMetric(float64(size)/1024, "page-KiB")
}
