package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

const alibabaHeader = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"

func TestReadAlibabaOpenB(t *testing.T) {
	t.Parallel()
	in := alibabaHeader +
		"p0,12000,16384,1,1000,,LS,Running,0,100,0\n" + // whole GPU, high
		"p1,6000,12288,1,460,,BE,Succeeded,10,70,20\n" + // fraction → 1 GPU, low, runtime 50
		"p2,4000,8192,0,0,,BE,Running,11,90,11\n" + // CPU only
		"p3,8000,8192,8,1000,,Burstable,Running,12,112,15\n" + // 8 GPUs, normal, runtime 97
		"p4,8000,8192,1,1000,,BE,Pending,13,40,\n" + // never scheduled
		"p5,8000,8192,1,1000,,Guaranteed,Failed,14,30,30\n" + // runtime 0
		"p6,8000,8192,2,1000,V100,weird,Running,15,25,16\n" // unknown qos → normal
	tr, err := ReadAlibabaOpenB(strings.NewReader(in), "pods.csv", ReadOptions{Users: 15, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name          string
		gpus, prio    int
		submit, runtm time.Duration
	}{
		{"p0", 1, scheduler.PriorityHigh, 0, 100 * time.Second},
		{"p1", 1, scheduler.PriorityLow, 10 * time.Second, 50 * time.Second},
		{"p3", 8, scheduler.PriorityNormal, 12 * time.Second, 97 * time.Second},
		{"p6", 2, scheduler.PriorityNormal, 15 * time.Second, 9 * time.Second},
	}
	if len(tr.Jobs) != len(want) || tr.Rows != 7 {
		t.Fatalf("got %d jobs of %d rows, want %d of 7: %+v", len(tr.Jobs), tr.Rows, len(want), tr.Jobs)
	}
	for i, w := range want {
		j := tr.Jobs[i]
		if j.Name != w.name || j.GPUs != w.gpus || j.Priority != w.prio || j.Submit != w.submit || j.Runtime != w.runtm || j.ID != int64(i+1) {
			t.Errorf("job %d = %+v, want %+v", i, j, w)
		}
		if j.User != userOf(j.Name, 7, 15) || j.User < 1 || j.User > 15 {
			t.Errorf("job %s user %d, want FNV of its name in 1..15", j.Name, j.User)
		}
	}
	if tr.Skipped["cpu-only"] != 1 || tr.Skipped["never ran"] != 2 {
		t.Errorf("skipped %v, want 1 cpu-only and 2 never ran", tr.Skipped)
	}
	if !strings.Contains(strings.Join(tr.Notes, "\n"), "1 fractional-GPU pods") {
		t.Errorf("notes do not count the fractional pod: %q", tr.Notes)
	}
}

func TestReadAlibabaOpenBErrors(t *testing.T) {
	t.Parallel()
	row := func(s string) string { return alibabaHeader + "p0,1,1,1,1000,,LS,Running,0,100,0\n" + s + "\n" }
	for name, tc := range map[string]struct{ in, want string }{
		"empty file":        {"", "pods.csv:1: empty file"},
		"missing column":    {"name,num_gpu\np0,1\n", `pods.csv:1: header lacks column "gpu_milli"`},
		"num_gpu not int":   {row("p1,1,1,x,1000,,LS,Running,0,100,0"), "pods.csv:3: column 4 (num_gpu):"},
		"negative gpus":     {row("p1,1,1,-1,1000,,LS,Running,0,100,0"), "pods.csv:3: column 4 (num_gpu): -1 GPUs"},
		"gpu_milli > 1000":  {row("p1,1,1,1,1500,,LS,Running,0,100,0"), "pods.csv:3: column 5 (gpu_milli)"},
		"bad creation time": {row("p1,1,1,1,1000,,LS,Running,abc,100,0"), "pods.csv:3: column 9 (creation_time)"},
		"no creation time":  {row("p1,1,1,1,1000,,LS,Running,,100,0"), "pods.csv:3: column 9 (creation_time): the creation time is empty"},
		"bad deletion time": {row("p1,1,1,1,1000,,LS,Running,0,1e999,0"), "pods.csv:3: column 10 (deletion_time)"},
		"short row":         {row("p1,1,1"), "pods.csv:3: 3 fields, the header has 11"},
		"empty name":        {row(",1,1,1,1000,,LS,Running,0,100,0"), "pods.csv:3: column 1 (name)"},
		"bad quoting":       {row(`p1,"1,1,1,1000,,LS,Running,0,100,0`), "pods.csv:3:"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadAlibabaOpenB(strings.NewReader(tc.in), "pods.csv", ReadOptions{Users: 3})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
