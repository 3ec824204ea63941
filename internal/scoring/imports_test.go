package scoring

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/puretest"
)

// TestPure fails if the model imports anything outside the standard library,
// reads the clock, draws random numbers, starts goroutines or does I/O:
// time is passed in.
func TestPure(t *testing.T) {
	t.Parallel()
	puretest.Check(t, "the scoring model", "time is passed in")
}
