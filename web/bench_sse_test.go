package web_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// sseSubscribers is how many browsers hold the event stream open.
const sseSubscribers = 200

// memSnapshot is the process's memory and goroutines after a full GC.
type memSnapshot struct {
	heapMB, rssMB float64
	goroutines    int
}

func snapshotMem() memSnapshot {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memSnapshot{heapMB: float64(m.HeapInuse) / (1 << 20), rssMB: rssMB(), goroutines: runtime.NumGoroutine()}
}

// rssMB is the resident set size from /proc (0 where there is none).
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkSSESubscribers: 200 signed-in browsers hold /events?topics=gpus
// open while a GPU change is signalled once a second (one op = one second,
// one event). Heap, RSS and goroutines are taken after a warm-up and again
// at the end (the process holds server and clients both); every subscriber
// must receive every event.
func BenchmarkSSESubscribers(b *testing.B) {
	s := testserver.New(b)
	browser := s.Login(b, "ana@example.com")
	cookies := browser.Jar.Cookies(mustURL(b, s.URL))
	transport := &http.Transport{MaxIdleConnsPerHost: sseSubscribers, MaxConnsPerHost: 0}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	received := make([]atomic.Int64, sseSubscribers)
	var connected, wg sync.WaitGroup
	connected.Add(sseSubscribers)
	for i := range sseSubscribers {
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
				if sc.Text() == "event: gpus" {
					received[i].Add(1)
				}
			}
		})
	}
	// Each stream subscribed before it answered; one op is one second, one event.
	connected.Wait()
	pace := time.NewTicker(time.Second)
	defer pace.Stop()
	tick := func(n int) {
		if err := models.Signal(ctx, s.DB.Bun, models.ChannelGPUs, fmt.Sprintf("bench:%d", n)); err != nil {
			b.Fatal(err)
		}
		<-pace.C
	}
	for i := range 3 { // warm-up
		tick(-i)
	}
	before := snapshotMem()
	base := make([]int64, sseSubscribers)
	for i := range received {
		base[i] = received[i].Load()
	}
	b.ResetTimer()
	for i := range b.N {
		tick(i)
	}
	b.StopTimer()
	eventually(10*time.Second, func() bool { // the last event reaches every subscriber
		for i := range received {
			if received[i].Load()-base[i] < int64(b.N) {
				return false
			}
		}
		return true
	})
	after := snapshotMem()
	minGot := int64(b.N)
	for i := range received {
		minGot = min(minGot, received[i].Load()-base[i])
	}
	cancel()
	wg.Wait()
	if minGot < int64(b.N)-1 { // the last event may still be in flight
		b.Errorf("a subscriber received %d of %d events", minGot, b.N)
	}
	b.ReportMetric(before.heapMB, "heap-before-MB")
	b.ReportMetric(after.heapMB, "heap-after-MB")
	b.ReportMetric(before.rssMB, "rss-before-MB")
	b.ReportMetric(after.rssMB, "rss-after-MB")
	b.ReportMetric(float64(before.goroutines), "goroutines-before")
	b.ReportMetric(float64(after.goroutines), "goroutines-after")
	b.ReportMetric(float64(minGot), "min-events/subscriber")
}
