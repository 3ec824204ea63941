package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// sim --mig compares each policy with every GPU whole and with the layout,
// fractional pods on slices: the same jobs complete, and on slices the
// fractional ones wait no longer and the GPU time per job is smaller.
func TestSimMIG(t *testing.T) {
	t.Parallel()
	out, err := runSimCmd(t, "--trace", simExcerpt, "--cluster", "2x8:H100", "--mig", "4x7:1g.10gb",
		"--policy", "fcfs,sjf-backfill", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Policy         string  `json:"policy"`
		MIG            bool    `json:"mig"`
		SliceJobs      int     `json:"slice_jobs"`
		JobsPerGPUHour float64 `json:"jobs_per_gpu_hour"`
		FracWait       float64 `json:"fractional_avg_wait_s"`
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
		whole, mig := rows[i], rows[i+1]
		if whole.MIG || !mig.MIG || whole.Policy != mig.Policy || mig.SliceJobs == 0 || whole.SliceJobs != 0 ||
			whole.Metrics.Jobs != mig.Metrics.Jobs || mig.JobsPerGPUHour <= whole.JobsPerGPUHour {
			t.Errorf("%s: whole %+v, MIG %+v", whole.Policy, whole, mig)
		}
	}
	text, err := runSimCmd(t, "--trace", simExcerpt, "--mig", "4x7:1g.10gb", "--policy", "fcfs")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MIG 4x7:1g.10gb", "fractional jobs ask for one slice", "jobs/GPU-h", "fcfs  whole", "fcfs    MIG"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if _, err := runSimCmd(t, "--trace", simExcerpt, "--mig-stretch"); err == nil || !strings.Contains(err.Error(), "give --mig") {
		t.Errorf("--mig-stretch alone: %v", err)
	}
}
