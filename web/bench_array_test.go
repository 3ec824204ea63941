package web_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// BenchmarkArraySubmit submits an array of 10,000 tasks in one request (one
// transaction, one INSERT of every task with its first event) against a
// real server and PostgreSQL, scheduling paused so that only the
// submission is measured; it reports tasks/s beside ns/op (one op: the
// whole array, answered).
//
//	go test -run '^$' -bench BenchmarkArraySubmit -benchtime 5x ./web/
func BenchmarkArraySubmit(b *testing.B) {
	s := withNodes(b, 2, 8)
	if err := models.SetSchedulingPaused(context.Background(), s.DB.Bun, true, nil, time.Now()); err != nil {
		b.Fatal(err)
	}
	tok, _ := s.UserToken(b, models.RoleMember)
	body := `{"command":"python train.py --seed $GPUSCHED_ARRAY_TASK_ID","gpu_count":1,"name":"sweep","array":"0-9999%8"}`
	b.ResetTimer()
	for b.Loop() {
		status, out := s.Do(b, "POST", "/api/v1/queue/submit", tok, body)
		var j api.Job
		if status != 201 || json.Unmarshal(out, &j) != nil || j.Array == nil || j.Array.TaskCount != 10000 {
			b.Fatalf("submit: %d %s", status, out)
		}
	}
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "tasks/s")
}
