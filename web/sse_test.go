package web_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// A heartbeat committed by a node reaches a signed-in browser's event
// stream as a named "gpus" event, through PostgreSQL NOTIFY.
func TestEventStreamCarriesHeartbeats(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	browser := s.Login(t, "ana@example.com")
	nodeTok, node := s.NodeToken(t, "gpu-a")
	if status, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(1)); status != 200 {
		t.Fatalf("register: %d %s", status, body)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/events?topics=gpus", nil)
	resp, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	// Wait for the stream to open, then beat until the event shows up (the
	// listener may subscribe a moment after the stream answers).
	for l := range lines {
		if l == ": connected" {
			break
		}
	}
	beat := fmt.Sprintf("/api/v1/nodes/%d/heartbeat", node.ID)
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case l := <-lines:
			if l == "event: gpus" {
				return
			}
			if strings.HasPrefix(l, "event: ") {
				t.Fatalf("unexpected event %q on a gpus-only stream", l)
			}
		case <-tick.C:
			if status, body := s.Do(t, "POST", beat, nodeTok, `{"gpus":[{"uuid":"GPU-a-0","utilization_pct":50}]}`); status != 200 {
				t.Fatalf("heartbeat: %d %s", status, body)
			}
		case <-ctx.Done():
			t.Fatal("no gpus event within 15s")
		}
	}
}

func TestEventStreamRejectsUnknownTopics(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	browser := s.Login(t, "ana@example.com")
	resp, err := browser.Get(s.URL + "/events?topics=gpus,secrets")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
}
