package scheduler

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/puretest"
)

// TestPure fails if the core imports anything outside the standard library,
// reads the clock, draws random numbers, starts goroutines or does I/O:
// time comes only from Snapshot.Now.
func TestPure(t *testing.T) {
	t.Parallel()
	puretest.Check(t, "the scheduling core", "use Snapshot.Now")
}
