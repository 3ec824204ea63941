package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// waitFor polls cond until it holds, failing the test after 30 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !eventually(30*time.Second, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// eventually polls cond until it holds and reports whether it did within limit.
func eventually(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); !cond(); <-time.After(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// explained reports whether a scheduling pass has explained why the job
// waits (a pass that left it queued did).
func explained(t testing.TB, s *testserver.Server, id int64) bool {
	t.Helper()
	n, err := s.DB.Bun.NewSelect().Model((*models.Job)(nil)).Where("id = ? AND pending_code <> ''", id).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}
