package sim

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

func TestReadCSV(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		in   string
		want []Job
	}{
		"required columns": {
			"id,user,submit_s,duration_s,gpus\na,ana,0,60,2\nb,bo,1.5,30,1\nc,ana,2,10,8\n",
			[]Job{
				{ID: 1, Name: "a", User: 1, Submit: 0, Runtime: time.Minute, GPUs: 2, Priority: scheduler.PriorityNormal},
				{ID: 2, Name: "b", User: 2, Submit: 1500 * time.Millisecond, Runtime: 30 * time.Second, GPUs: 1, Priority: scheduler.PriorityNormal},
				{ID: 3, Name: "c", User: 1, Submit: 2 * time.Second, Runtime: 10 * time.Second, GPUs: 8, Priority: scheduler.PriorityNormal},
			},
		},
		"priority and estimate": {
			"id,user,submit_s,duration_s,gpus,priority,estimate_s\na,ana,0,60,1,high,90\nb,bo,0,60,1,1,\nc,cy,0,60,1,,\n",
			[]Job{
				{ID: 1, Name: "a", User: 1, Runtime: time.Minute, GPUs: 1, Priority: scheduler.PriorityHigh, Estimate: 90 * time.Second},
				{ID: 2, Name: "b", User: 2, Runtime: time.Minute, GPUs: 1, Priority: scheduler.PriorityLow},
				{ID: 3, Name: "c", User: 3, Runtime: time.Minute, GPUs: 1, Priority: scheduler.PriorityNormal},
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr, err := ReadCSV(strings.NewReader(tc.in), "t.csv")
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Jobs) != len(tc.want) {
				t.Fatalf("got %d jobs, want %d", len(tr.Jobs), len(tc.want))
			}
			for i := range tc.want {
				if d := cmp.Diff(tc.want[i], tr.Jobs[i]); d != "" {
					t.Errorf("job %d (-want +got):\n%s", i, d)
				}
			}
			if tr.Users[1] != "ana" {
				t.Errorf("users %q", tr.Users)
			}
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	t.Parallel()
	const h = "id,user,submit_s,duration_s,gpus,priority\n"
	for name, tc := range map[string]struct{ in, want string }{
		"no header":       {"", "t.csv:1: empty file"},
		"missing gpus":    {"id,user,submit_s,duration_s\na,b,0,1\n", `t.csv:1: header lacks column "gpus"`},
		"zero duration":   {h + "a,ana,0,60,1,\nb,ana,0,0,1,\n", "t.csv:3: column 4 (duration_s)"},
		"negative submit": {h + "a,ana,-1,60,1,\n", "t.csv:2: column 3 (submit_s)"},
		"zero gpus":       {h + "a,ana,0,60,0,\n", "t.csv:2: column 5 (gpus)"},
		"half a gpu":      {h + "a,ana,0,60,0.5,\n", "t.csv:2: column 5 (gpus)"},
		"bad priority":    {h + "a,ana,0,60,1,urgent\n", "t.csv:2: column 6 (priority)"},
		"priority 5":      {h + "a,ana,0,60,1,5\n", "t.csv:2: column 6 (priority)"},
		"no user":         {h + "a,,0,60,1,\n", "t.csv:2: column 2 (user)"},
		"extra field":     {h + "a,ana,0,60,1,,9\n", "t.csv:2: 7 fields, the header has 6"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadCSV(strings.NewReader(tc.in), "t.csv")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if pe := (*ParseError)(nil); !errors.As(err, &pe) {
				t.Errorf("%v is not a *ParseError", err)
			}
		})
	}
}
