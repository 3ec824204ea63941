package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

const tiresiasHeader = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"

func TestReadTiresias(t *testing.T) {
	t.Parallel()
	in := tiresiasHeader + "0,1,0,606,vgg19,164,30\n1,8,30,133,vgg11,147,23\n2,2,53,157,inception4,0,26\n"
	tr, err := ReadTiresias(strings.NewReader(in), "jobs.csv", ReadOptions{Users: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs) != 2 || tr.Skipped["zero duration"] != 1 || tr.Rows != 3 {
		t.Fatalf("jobs %+v skipped %v rows %d", tr.Jobs, tr.Skipped, tr.Rows)
	}
	j := tr.Jobs[1]
	if j.Name != "1" || j.GPUs != 8 || j.Submit != 30*time.Second || j.Runtime != 147*time.Second ||
		j.Priority != scheduler.PriorityNormal || j.User != userOf("1", 1, 4) {
		t.Errorf("job = %+v", j)
	}
}

func TestReadTiresiasErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ in, want string }{
		"missing column":    {"job_id,num_gpu,submit_time\n0,1,0\n", `jobs.csv:1: header lacks column "duration"`},
		"zero gpus":         {tiresiasHeader + "0,0,0,1,m,10,1\n", "jobs.csv:2: column 2 (num_gpu)"},
		"bad submit":        {tiresiasHeader + "0,1,soon,1,m,10,1\n", "jobs.csv:2: column 3 (submit_time)"},
		"negative duration": {tiresiasHeader + "0,1,0,1,m,10,1\n1,1,5,1,m,-3,1\n", "jobs.csv:3: column 6 (duration)"},
		"empty id":          {tiresiasHeader + ",1,0,1,m,10,1\n", "jobs.csv:2: column 1 (job_id)"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadTiresias(strings.NewReader(tc.in), "jobs.csv", ReadOptions{Users: 2})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// The Tiresias 60-job trace on its own 32x4 cluster: the 8-GPU jobs are
// larger than a node, so they span nodes, and every job finishes.
func TestReplayTiresias60(t *testing.T) {
	t.Parallel()
	tr, err := ReadTrace("testdata/tiresias-60-job.csv", "", ReadOptions{Users: 15, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	w, err := Prepare(tr.Jobs, Cluster{Nodes: 32, GPUsPerNode: 4, Model: "V100"}, PrepareOptions{Load: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != FormatTiresias || len(w.Jobs) != 60 || w.MultiNode != 10 {
		t.Fatalf("format %s, %d jobs, %d multi-node", tr.Format, len(w.Jobs), w.MultiNode)
	}
	for _, name := range []string{"fcfs", "fairshare-backfill", "sjf-backfill"} {
		ps, err := Policies([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(w, ps[0].Config)
		if err != nil {
			t.Fatal(err)
		}
		if m := Summarize(name, r, w.Cluster.GPUs(), w.OfferedLoad); m.Jobs != 60 || m.Utilization > 1 {
			t.Errorf("%s: %+v", name, m)
		}
	}
}
