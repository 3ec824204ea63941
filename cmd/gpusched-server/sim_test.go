package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

const simExcerpt = "../../internal/sim/testdata/alibaba-openb-excerpt.csv"

// runSimCmd runs gpusched sim with args and returns what it printed.
func runSimCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newSimCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestSimJSON(t *testing.T) {
	t.Parallel()
	out, err := runSimCmd(t, "--trace", simExcerpt, "--format", "alibaba-openb", "--cluster", "2x8:H100",
		"--load", "0.9", "--policy", "fcfs,priority-backfill,fairshare-backfill", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got) != 3 {
		t.Fatalf("%d objects, want 3: %s", len(got), out)
	}
	for i, policy := range []string{"fcfs", "priority-backfill", "fairshare-backfill"} {
		for _, k := range []string{"policy", "jobs", "avg_wait_s", "median_wait_s", "p95_wait_s", "avg_jct_s",
			"makespan_s", "utilization", "jain_fairness", "preemptions", "offered_load"} {
			if _, ok := got[i][k]; !ok {
				t.Errorf("%s: no key %q", policy, k)
			}
		}
		if got[i]["policy"] != policy || got[i]["jobs"] != 259.0 || got[i]["offered_load"].(float64) < 0.899 ||
			got[i]["utilization"].(float64) > 1 {
			t.Errorf("object %d: %v", i, got[i])
		}
	}
}

func TestSimTable(t *testing.T) {
	t.Parallel()
	out, err := runSimCmd(t, "--trace", simExcerpt, "--policy", "fcfs")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(alibaba-openb), 299 rows", "259 replayed, --limit 1000", "2x8:H100", "offered 0.900", "fcfs "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSimErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no trace":     {nil, "give --trace FILE"},
		"bad cluster":  {[]string{"--trace", simExcerpt, "--cluster", "16"}, "is not NxG:MODEL"},
		"bad policy":   {[]string{"--trace", simExcerpt, "--policy", "lottery"}, `policy "lottery" is not one of fcfs`},
		"wrong format": {[]string{"--trace", simExcerpt, "--format", "tiresias"}, `header lacks column "job_id"`},
		"no users":     {[]string{"--trace", simExcerpt, "--users", "0"}, "users must be at least 1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := runSimCmd(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A cluster of two GPU models steers jobs between them (the report says
// so): at a load light enough that both models often have free GPUs, jobs
// complete sooner than with --no-steer, which leaves them on the first
// node group's slower GPUs.
func TestSimSteering(t *testing.T) {
	t.Parallel()
	args := []string{"--trace", simExcerpt, "--cluster", "1x8:L4@2.5+1x8:H100", "--policy", "fcfs", "--load", "0.2"}
	out, err := runSimCmd(t, args...)
	if err != nil || !strings.Contains(out, "1x8:L4@2.5+1x8:H100: 16 GPUs on 2 nodes") || !strings.Contains(out, "jobs steered between GPU models") {
		t.Fatalf("%v:\n%s", err, out)
	}
	jct := func(extra ...string) float64 {
		t.Helper()
		out, err := runSimCmd(t, append(append(args, "--json"), extra...)...)
		var got []map[string]any
		if err != nil || json.Unmarshal([]byte(out), &got) != nil || len(got) != 1 {
			t.Fatalf("%v: %s", err, out)
		}
		return got[0]["avg_jct_s"].(float64)
	}
	if steered, plain := jct(), jct("--no-steer"); steered >= plain {
		t.Errorf("mean JCT %.0f s with steering, %.0f s without", steered, plain)
	}
}

// A scoring setting out of range is refused, as the server refuses it.
func TestSimScoringSettings(t *testing.T) {
	t.Setenv("SCHEDULER_LAMBDA_UNCERTAINTY", "-1")
	if _, err := runSimCmd(t, "--trace", simExcerpt, "--policy", "fcfs"); err == nil || !strings.Contains(err.Error(), "SCHEDULER_LAMBDA_UNCERTAINTY") {
		t.Fatalf("error %v, want one naming SCHEDULER_LAMBDA_UNCERTAINTY", err)
	}
}
