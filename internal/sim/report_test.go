package sim

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReportText(t *testing.T) {
	t.Parallel()
	tr, w := excerptWorkload(t)
	ms := []Metrics{Summarize("fcfs", threeJobsResult(), 16, w.OfferedLoad), Summarize("fairshare-backfill", threeJobsResult(), 16, w.OfferedLoad)}
	ms[1].Unschedulable = 2
	var b bytes.Buffer
	r := Report{Trace: tr, Workload: w, Users: 15, Seed: 1, Load: 0.9, Limit: 2000, Metrics: ms}
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		excerpt + " (alibaba-openb), 299 rows", "259 replayed", "19 cpu-only", "21 never ran",
		"2x8:H100: 16 GPUs", "offered 0.900", "fractional-GPU pods", "FNV-1a", "--limit 2000",
		"fcfs ", "fairshare-backfill ", "unschedulable jobs dropped: fairshare-backfill 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(line) > 100 {
			t.Errorf("line wider than 100 columns: %q", line)
		}
	}
}

func TestReportJSON(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	r := Report{Metrics: []Metrics{Summarize("fcfs", threeJobsResult(), 2, 0.9)}}
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil || len(got) != 1 {
		t.Fatalf("%v: %s", err, b.String())
	}
	for _, k := range []string{"policy", "jobs", "avg_wait_s", "median_wait_s", "p95_wait_s", "avg_jct_s",
		"makespan_s", "utilization", "jain_fairness", "preemptions", "offered_load"} {
		if _, ok := got[0][k]; !ok {
			t.Errorf("no key %q in %v", k, got[0])
		}
	}
	if got[0]["policy"] != "fcfs" || got[0]["median_wait_s"] != 90.0 {
		t.Errorf("object %v", got[0])
	}
}

func TestHuman(t *testing.T) {
	t.Parallel()
	for s, want := range map[float64]string{0: "0s", 42: "42s", 150: "2.5m", 7200: "2.0h", 3 * 86400: "3.0d"} {
		if got := human(s); got != want {
			t.Errorf("human(%v) = %q, want %q", s, got, want)
		}
	}
}
