package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// TestReplayPipeline: a trace with dependencies and time limits replays. On
// a 4-GPU node with room for everything, train starts when preprocess
// completes, eval when train does; a step that runs past its limit is
// stopped there (timed out), and the step after it is dropped; a job
// without dependencies starts at once.
func TestReplayPipeline(t *testing.T) {
	t.Parallel()
	const trace = `id,user,submit_s,duration_s,gpus,time_limit_s,after
prep,ana,0,60,1,,
train,ana,0,300,2,,prep
eval,ana,0,30,1,,train
long,bo,0,500,1,100,
after-long,bo,0,10,1,,long
other,cy,5,20,1,,
`
	tr, err := ReadCSV(strings.NewReader(trace), "pipeline.csv")
	if err != nil {
		t.Fatal(err)
	}
	w := &Workload{Jobs: tr.Jobs, Cluster: Cluster{Nodes: 1, GPUsPerNode: 4, Model: "H100"}, Scale: 1}
	for policy, cfg := range map[string]scheduler.Config{"fcfs": fcfsConfig(t), "default": scheduler.DefaultConfig()} {
		r, err := Run(w, cfg)
		if err != nil {
			t.Fatalf("%s: %v", policy, err)
		}
		by := map[string]Record{}
		for _, rec := range r.Records {
			by[rec.Job.Name] = rec
		}
		sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
		for name, want := range map[string][2]time.Duration{
			"prep": {0, sec(60)}, "train": {sec(60), sec(360)}, "eval": {sec(360), sec(390)},
			"long": {0, sec(100)}, "other": {sec(5), sec(25)},
		} {
			if rec := by[name]; !rec.Done || rec.Start != want[0] || rec.End != want[1] {
				t.Errorf("%s: %s ran [%s, %s] done %v, want [%s, %s]", policy, name, rec.Start, rec.End, rec.Done, want[0], want[1])
			}
		}
		if !by["long"].TimedOut || r.TimedOut != 1 {
			t.Errorf("%s: long timed out %v, %d timed out in all", policy, by["long"].TimedOut, r.TimedOut)
		}
		if rec := by["after-long"]; rec.Done || !rec.Unschedulable {
			t.Errorf("%s: after-long %+v, want dropped", policy, rec)
		}
	}
}
