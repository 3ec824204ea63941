package opstest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"
)

// accessLine is the part of the server's JSON request log line the tests read.
type accessLine struct {
	Time      time.Time     `json:"time"`
	Msg       string        `json:"msg"`
	RequestID string        `json:"request_id"`
	Err       string        `json:"err"`
	Method    string        `json:"method"`
	Path      string        `json:"path"`
	Status    int           `json:"status"`
	Latency   time.Duration `json:"latency"`
}

// serverErrorsSince lists the requests in the server's access log (its
// JSON log at logPath) that began at or after since and answered 5xx, each
// with the error the server logged for it: API calls, pages and the node
// agents' heartbeats and command answers alike.
func serverErrorsSince(t testing.TB, logPath string, since time.Time) []string {
	t.Helper()
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatalf("read the server's log: %v", err)
	}
	defer f.Close()
	var bad []string
	why := map[string]string{} // request id → the error logged for it
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var l accessLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		if l.Msg == "request failed" {
			why[l.RequestID] = l.Err
		}
		if l.Msg != "request" || l.Status < 500 {
			continue
		}
		if began := l.Time.Add(-l.Latency); !began.Before(since) {
			bad = append(bad, fmt.Sprintf("%s %s answered %d %s after readiness: %s",
				l.Method, l.Path, l.Status, began.Sub(since).Round(time.Millisecond), why[l.RequestID]))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read the server's log: %v", err)
	}
	return bad
}
