package models

import (
	"strings"
	"testing"
)

// The standalone heartbeat is the same statement, committed without
// waiting for the WAL flush.
func TestHeartbeatAloneSQL(t *testing.T) {
	t.Parallel()
	if !strings.HasPrefix(strings.TrimSpace(heartbeatAloneSQL), "WITH async AS (SELECT set_config('synchronous_commit', 'off', true))") ||
		!strings.HasSuffix(heartbeatAloneSQL, "\nFROM n, async") {
		t.Fatalf("heartbeatAloneSQL is not heartbeatSQL made asynchronous:\n%s", heartbeatAloneSQL)
	}
}
