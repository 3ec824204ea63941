package web_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BenchmarkSSELatency: 200 signed-in browsers hold /events?topics=gpus open
// while GPU changes are signalled through PostgreSQL at 100 a second (one op
// = one change). A change counts as delivered to a browser when an event
// carrying it or a later change arrives; p50 and p99 are over every
// (browser, change) pair, from just before the NOTIFY to the browser's read.
// Run: go test ./web -run '^$' -bench BenchmarkSSELatency -benchtime 1000x
func BenchmarkSSELatency(b *testing.B) {
	s := testserver.New(b)
	browser := s.Login(b, "ana@example.com")
	cookies := browser.Jar.Cookies(mustURL(b, s.URL))
	transport := &http.Transport{MaxIdleConnsPerHost: sseSubscribers, MaxConnsPerHost: 0}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	sent := make([]atomic.Int64, b.N) // unix ns just before change k's NOTIFY
	lat := make([][]time.Duration, sseSubscribers)
	seen := make([]atomic.Int64, sseSubscribers) // highest change received, -1 for none
	var connected, wg sync.WaitGroup
	connected.Add(sseSubscribers)
	for i := range sseSubscribers {
		seen[i].Store(-1)
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/events?topics=gpus", nil)
			for _, c := range cookies {
				req.AddCookie(c)
			}
			resp, err := client.Do(req)
			if err != nil || resp.StatusCode != 200 {
				b.Errorf("subscriber %d: %v", i, err)
				connected.Done()
				return
			}
			defer resp.Body.Close()
			connected.Done()
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				rest, ok := strings.CutPrefix(sc.Text(), "data: lat:")
				if !ok {
					continue
				}
				now := time.Now().UnixNano()
				k, err := strconv.ParseInt(rest, 10, 64)
				if err != nil {
					continue
				}
				for j := seen[i].Load() + 1; j <= k; j++ {
					lat[i] = append(lat[i], time.Duration(now-sent[j].Load()))
				}
				if k > seen[i].Load() {
					seen[i].Store(k)
				}
			}
		})
	}
	connected.Wait() // each stream subscribed before it answered

	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	b.ResetTimer()
	for k := range b.N {
		<-tick.C
		sent[k].Store(time.Now().UnixNano())
		if err := models.Signal(ctx, s.DB.Bun, models.ChannelGPUs, fmt.Sprintf("lat:%d", k)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	eventually(5*time.Second, func() bool { // the last change reaches every subscriber
		for i := range sseSubscribers {
			if seen[i].Load() != int64(b.N-1) {
				return false
			}
		}
		return true
	})
	cancel()
	wg.Wait()
	var all []time.Duration
	for i := range lat {
		if seen[i].Load() != int64(b.N-1) {
			b.Errorf("subscriber %d saw changes up to %d of %d", i, seen[i].Load(), b.N-1)
		}
		all = append(all, lat[i]...)
	}
	if len(all) == 0 {
		b.Fatal("no change was delivered")
	}
	slices.Sort(all)
	pct := func(p float64) float64 {
		return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(all[len(all)-1].Microseconds())/1000, "max-ms")
}
