package api

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/puretest"
)

// TestStdlibOnly fails if the wire contract imports anything outside the
// standard library: the CLI, the agents and the server all link it.
func TestStdlibOnly(t *testing.T) {
	t.Parallel()
	puretest.StdlibOnly(t, "the wire contract")
}
