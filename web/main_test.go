package web_test

import (
	"os"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
)

func TestMain(m *testing.M) {
	if client, code := runBenchClient(); client { // BenchmarkSubmissionCPU's submitting process
		os.Exit(code)
	}
	testdb.Main(m)
}
