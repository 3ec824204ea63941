package cli

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// testBuild is the build the tests' root command reports.
var testBuild = Build{Version: "v9.9.9-test", Commit: "abc123", Date: "2026-01-02T03:04:05Z", Facts: []string{"extra: fact"}}

// gpusched runs the client commands with args, on the root the binary builds
// for them, and returns what they printed on stdout.
func gpusched(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, _, err := gpuschedStderr(t, args...)
	return out, err
}

// gpuschedStderr is gpusched with what the command wrote to standard
// error too.
func gpuschedStderr(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := NewRootFor(testBuild, args)
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
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
