package web_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BenchmarkNotifyDeliveryLatency measures the time from a job's end (the
// release's answer, after its transaction committed) to the signed
// job.finished reaching a webhook receiver, through River's notify queue.
// It reports p50 and p99 over b.N job ends.
func BenchmarkNotifyDeliveryLatency(b *testing.B) {
	s := withNodeB(b, 8)
	tok, _ := s.UserToken(b, models.RoleMember)
	recv := newWebhookReceiverB(b)
	st, body := s.Do(b, "POST", "/api/v1/notifications/channels", tok, `{"type":"webhook","url":"`+recv.URL+`","rate_per_minute":600}`)
	if st != 201 {
		b.Fatalf("channel: %d %s", st, body)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		ref := fmt.Sprintf("bench-%d", i)
		if st, body := s.Do(b, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"job_id":"`+ref+`","gpu_count":1,"timeout_s":20}`); st != 200 {
			b.Fatalf("allocate: %d %s", st, body)
		}
		b.StartTimer()
		if st, body := s.Do(b, "POST", "/api/v1/cluster/gpu-release", tok, `{"job_id":"`+ref+`"}`); st != 200 {
			b.Fatalf("release: %d %s", st, body)
		}
		committed := time.Now()
		select {
		case rec := <-recv.got:
			lat = append(lat, rec.At.Sub(committed))
		case <-time.After(10 * time.Second):
			b.Fatal("no delivery within 10s")
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99_ms")
}

func withNodeB(b *testing.B, gpus int) *testserver.Server {
	s := testserver.New(b)
	nodeTok, _ := s.NodeToken(b, "gpu-a")
	if st, body := s.Do(b, "POST", "/api/v1/nodes/register", nodeTok, registerBody(gpus)); st != 200 {
		b.Fatalf("register: %d %s", st, body)
	}
	return s
}

// newWebhookReceiverB is a receiver that answers 200 and records arrival times.
func newWebhookReceiverB(b *testing.B) *webhookReceiver {
	r := &webhookReceiver{got: make(chan received, 1024)}
	r.secret.Store("")
	r.Server = newRecordingServer(r.got)
	b.Cleanup(r.Close)
	return r
}
