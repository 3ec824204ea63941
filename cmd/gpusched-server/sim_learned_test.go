package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// --estimates learned replays with the scoring model's estimates: the same
// jobs, a different schedule for a policy that reads estimates (SJF), and
// none for one that does not (FCFS); bad combinations are refused.
func TestSimLearnedEstimates(t *testing.T) {
	t.Parallel()
	run := func(estimates string) map[string]map[string]any {
		out, err := runSimCmd(t, "--trace", simExcerpt, "--policy", "fcfs,sjf-backfill", "--json", "--estimates", estimates)
		if err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		byPolicy := map[string]map[string]any{}
		for _, r := range rows {
			byPolicy[r["policy"].(string)] = r
		}
		return byPolicy
	}
	exact, learned := run("exact"), run("learned")
	if exact["fcfs"]["avg_wait_s"] != learned["fcfs"]["avg_wait_s"] || learned["fcfs"]["jobs"] != 259.0 {
		t.Errorf("fcfs changed with learned estimates: %v vs %v", exact["fcfs"], learned["fcfs"])
	}
	if exact["sjf-backfill"]["avg_wait_s"] == learned["sjf-backfill"]["avg_wait_s"] {
		t.Errorf("sjf-backfill did not change with learned estimates: %v", learned["sjf-backfill"])
	}
	for args, want := range map[string]string{
		"--estimates learned --estimate-noise 0.5": "leave out --estimate-noise",
		"--estimates guessed":                      "must be exact, none or learned",
	} {
		_, err := runSimCmd(t, append([]string{"--trace", simExcerpt, "--policy", "fcfs"}, strings.Fields(args)...)...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", args, err, want)
		}
	}
}
