package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// sim --shared compares each policy with every GPU whole and with shared
// GPUs, fractional pods taking their share of one: the same jobs complete,
// and with shares the GPU time per job is smaller.
func TestSimShared(t *testing.T) {
	t.Parallel()
	out, err := runSimCmd(t, "--trace", simExcerpt, "--cluster", "2x8:H100", "--shared", "4x4",
		"--policy", "fcfs,sjf-backfill", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Policy         string  `json:"policy"`
		MIG            bool    `json:"mig"`
		SliceJobs      int     `json:"slice_jobs"`
		JobsPerGPUHour float64 `json:"jobs_per_gpu_hour"`
		Metrics        struct {
			Jobs int `json:"jobs"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4: %s", len(rows), out)
	}
	for i := 0; i < len(rows); i += 2 {
		whole, shared := rows[i], rows[i+1]
		if whole.MIG || !shared.MIG || whole.Policy != shared.Policy || shared.SliceJobs == 0 || whole.SliceJobs != 0 ||
			whole.Metrics.Jobs != shared.Metrics.Jobs || shared.JobsPerGPUHour <= whole.JobsPerGPUHour {
			t.Errorf("%s: whole %+v, shared %+v", whole.Policy, whole, shared)
		}
	}
	text, err := runSimCmd(t, "--trace", simExcerpt, "--shared", "4x4", "--policy", "fcfs")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"shared 4x4", "share of one shared GPU", "jobs/GPU-h", "fcfs   whole", "fcfs  shared"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if _, err := runSimCmd(t, "--trace", simExcerpt, "--shared", "4x4", "--mig", "4x7:1g.10gb"); err == nil {
		t.Error("--shared with --mig: no error")
	}
}
