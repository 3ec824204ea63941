package views

import (
	"math"
	"testing"
	"time"
)

func TestGiB(t *testing.T) {
	for _, tc := range []struct {
		mib  int64
		want string
	}{
		{0, "0.0"},
		{-5, "0.0"},
		{512, "0.5"},
		{1024, "1.0"},
		{81559, "79.6"}, // H100 80GB as nvidia-smi reports it
		{81920, "80.0"},
		{1310720, "1280.0"},
		{1075, "1.0"}, // 1.0498 rounds down
		{1076, "1.1"}, // 1.0508 rounds up
	} {
		if got := GiB(tc.mib); got != tc.want {
			t.Errorf("GiB(%d) = %q, want %q", tc.mib, got, tc.want)
		}
	}
	if got := MemoryGiB(40960, 81920); got != "40.0 / 80.0 GiB" {
		t.Errorf("MemoryGiB = %q", got)
	}
}

func TestAgo(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, "never"},
		{now, "just now"},
		{now.Add(500 * time.Millisecond), "just now"}, // clock skew: in the future
		{now.Add(time.Hour), "just now"},
		{now.Add(-999 * time.Millisecond), "just now"},
		{now.Add(-time.Second), "1s ago"},
		{now.Add(-12 * time.Second), "12s ago"},
		{now.Add(-59 * time.Second), "59s ago"},
		{now.Add(-60 * time.Second), "1m ago"},
		{now.Add(-59*time.Minute - 59*time.Second), "59m ago"},
		{now.Add(-3 * time.Hour), "3h ago"},
		{now.Add(-24 * time.Hour), "1d ago"},
		{now.Add(-50 * 24 * time.Hour), "50d ago"},
	} {
		if got := Ago(now, tc.t); got != tc.want {
			t.Errorf("Ago(now, %v) = %q, want %q", now.Sub(tc.t), got, tc.want)
		}
	}
}

func TestClampPct(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want int
	}{
		{0, 0}, {-3, 0}, {math.NaN(), 0}, {math.Inf(-1), 0},
		{42.4, 42}, {42.5, 43}, {99.6, 100}, {100, 100}, {250, 100}, {math.Inf(1), 100},
	} {
		if got := ClampPct(tc.in); got != tc.want {
			t.Errorf("ClampPct(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		used, total int64
		want        int
	}{
		{0, 0, 0}, {5, 0, 0}, {5, -1, 0}, {20480, 81920, 25}, {90000, 81920, 100},
	} {
		if got := UsedPct(tc.used, tc.total); got != tc.want {
			t.Errorf("UsedPct(%d, %d) = %d, want %d", tc.used, tc.total, got, tc.want)
		}
	}
}

func TestStateClasses(t *testing.T) {
	for _, tc := range []struct{ state, class, label string }{
		{"free", "state-free", "Free"},
		{"allocated", "state-allocated", "Allocated"},
		{"held", "state-held", "Held"},
		{"booked", "state-booked", "Booked"},
		{"unavailable", "state-unavailable", "Unavailable"},
		{"foreign", "state-foreign", "Outside use"},
		{"", "state-unknown", "Unknown"},
		{"weird\" onclick=x", "state-unknown", "weird\" onclick=x"},
	} {
		if got := StateClass(tc.state); got != tc.class {
			t.Errorf("StateClass(%q) = %q, want %q", tc.state, got, tc.class)
		}
		if got := StateLabel(tc.state); got != tc.label {
			t.Errorf("StateLabel(%q) = %q, want %q", tc.state, got, tc.label)
		}
	}
	for in, want := range map[string]string{"up": "status-up", "down": "status-down", "draining": "status-draining", "": "status-unknown", "x": "status-unknown"} {
		if got := StatusClass(in); got != want {
			t.Errorf("StatusClass(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"ok": "health-ok", "failed": "health-failed", "degraded": "health-degraded", "??": "health-degraded"} {
		if got := HealthClass(in); got != want {
			t.Errorf("HealthClass(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCSRFHeadersAndURLs(t *testing.T) {
	if got := CSRFHeaders(`a"b<c>`); got != `{"X-CSRF-Token":"a\"b\u003cc\u003e"}` {
		t.Errorf("CSRFHeaders = %s", got)
	}
	if got := JobURL(42); got != "/jobs/42" {
		t.Errorf("JobURL = %s", got)
	}
	if got := barStyle(140); got != "width: 100%" {
		t.Errorf("barStyle = %s", got)
	}
}
