package web

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The throttle sends the first change of a burst at once, folds the rest
// into one trailing send per interval, and keeps the latest payload.
func TestThrottleLeadingAndTrailing(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	th := newThrottle(200 * time.Millisecond)

	if !th.offer("gpus", "a", at(0)) {
		t.Fatal("first change of a burst must go at once")
	}
	if th.offer("gpus", "b", at(50)) || th.offer("gpus", "c", at(120)) {
		t.Fatal("changes within the interval must wait")
	}
	if !th.offer("jobs", "x", at(130)) {
		t.Fatal("another topic has its own interval")
	}
	if wait, ok := th.next(at(120)); !ok || wait != 80*time.Millisecond {
		t.Fatalf("next = %v %v, want 80ms true", wait, ok)
	}
	if got := th.due(at(150)); len(got) != 0 {
		t.Fatalf("due before the interval: %v", got)
	}
	if diff := cmp.Diff(map[string]string{"gpus": "c"}, th.due(at(200))); diff != "" {
		t.Fatalf("trailing send (-want +got):\n%s", diff)
	}
	if _, ok := th.next(at(200)); ok {
		t.Fatal("nothing should wait after the trailing send")
	}
	// A change right after the trailing send waits for the next interval.
	if th.offer("gpus", "d", at(250)) {
		t.Fatal("change 50ms after a trailing send must wait")
	}
	if diff := cmp.Diff(map[string]string{"gpus": "d"}, th.due(at(400))); diff != "" {
		t.Fatalf("second trailing send (-want +got):\n%s", diff)
	}
	// After a quiet interval the next change leads again.
	if !th.offer("gpus", "e", at(700)) {
		t.Fatal("change after a quiet interval must go at once")
	}
}
