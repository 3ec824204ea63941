package sim

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReadCSVArrays: the array column groups rows into arrays keyed by
// their first task's ID, array_max_running gives the array's %N to every
// task (given on any row, "%3" too), and after may name a whole array.
func TestReadCSVArrays(t *testing.T) {
	t.Parallel()
	const h = "id,user,submit_s,duration_s,gpus,after,array,array_max_running\n"
	type got struct {
		ArrayID int64
		Limit   int
		After   []int64
	}
	for name, tc := range map[string]struct {
		in    string
		want  []got
		notes string
	}{
		"no array columns": {"id,user,submit_s,duration_s,gpus\na,ana,0,60,1\n", []got{{}}, ""},
		"an array of three with %2": {h + "s0,ana,0,60,1,,sweep,2\ns1,ana,0,60,1,,sweep,\ns2,ana,0,60,1,,sweep,2\n",
			[]got{{1, 2, nil}, {1, 2, nil}, {1, 2, nil}}, "job arrays: 1, tasks in them: 3, arrays with a %N limit: 1"},
		"the limit on a later row only, written %3": {h + "s0,ana,0,60,1,,sweep,\ns1,ana,0,60,1,,sweep,%3\n",
			[]got{{1, 3, nil}, {1, 3, nil}}, ""},
		"no limit": {h + "s0,ana,0,60,1,,sweep,\ns1,ana,0,60,1,,sweep,0\n", []got{{1, 0, nil}, {1, 0, nil}},
			"job arrays: 1, tasks in them: 2, arrays with a %N limit: 0"},
		"two arrays interleaved beside a plain job": {h + "a0,ana,0,60,1,,A,1\nb0,bo,0,60,1,,B,\nx,cy,0,60,1,,,\na1,ana,0,60,1,,A,\nb1,bo,0,60,1,,B,\n",
			[]got{{1, 1, nil}, {2, 0, nil}, {}, {1, 1, nil}, {2, 0, nil}}, "job arrays: 2, tasks in them: 4"},
		"tasks after a row": {h + "prep,ana,0,60,1,,,\ns0,ana,0,60,1,prep,sweep,3\ns1,ana,0,60,1,prep,sweep,3\n",
			[]got{{}, {2, 3, []int64{1}}, {2, 3, []int64{1}}}, ""},
		"a row after a whole array": {h + "s0,ana,0,60,1,,sweep,3\ns1,ana,0,60,1,,sweep,\npick,ana,0,60,1,sweep,,\n",
			[]got{{1, 3, nil}, {1, 3, nil}, {0, 0, []int64{1, 2}}}, ""},
		"an array after an array and a row": {h + "prep,ana,0,60,1,,,\ns0,ana,0,60,1,,A,\ns1,ana,0,60,1,,A,\nt0,ana,0,60,1,A;prep,B,1\n",
			[]got{{}, {2, 0, nil}, {2, 0, nil}, {4, 1, []int64{2, 3, 1}}}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr, err := ReadCSV(strings.NewReader(tc.in), "t.csv")
			if err != nil {
				t.Fatal(err)
			}
			var have []got
			for _, j := range tr.Jobs {
				have = append(have, got{j.ArrayID, j.ArrayMaxRunning, j.After})
			}
			if d := cmp.Diff(tc.want, have); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			notes := strings.Join(tr.Notes, "\n")
			if tc.notes != "" && !strings.Contains(notes, tc.notes) {
				t.Errorf("notes %q lack %q", notes, tc.notes)
			}
			if !strings.Contains(tc.in, "array") && strings.Contains(notes, "array") {
				t.Errorf("notes %q speak of arrays", notes)
			}
		})
	}
}

// TestReadCSVArrayErrors: every bad array value is an error naming the
// line and the column.
func TestReadCSVArrayErrors(t *testing.T) {
	t.Parallel()
	const h = "id,user,submit_s,duration_s,gpus,after,array,array_max_running\n"
	for name, tc := range map[string]struct{ in, want string }{
		"limit not a number": {h + "s0,ana,0,60,1,,sweep,three\n", `t.csv:2: column 8 (array_max_running): "three" is not a %N limit`},
		"negative limit":     {h + "s0,ana,0,60,1,,sweep,-1\n", `t.csv:2: column 8 (array_max_running): "-1" is not a %N limit`},
		"fractional limit":   {h + "s0,ana,0,60,1,,sweep,1.5\n", `t.csv:2: column 8 (array_max_running): "1.5"`},
		"a bare %":           {h + "s0,ana,0,60,1,,sweep,%\n", `t.csv:2: column 8 (array_max_running): "%"`},
		"limit without array": {h + "s0,ana,0,60,1,,,3\n",
			"t.csv:2: column 8 (array_max_running): a %N limit needs an array"},
		"two limits for one array": {h + "s0,ana,0,60,1,,sweep,3\ns1,ana,0,60,1,,sweep,4\n",
			`t.csv:3: column 8 (array_max_running): array "sweep" runs at most 3 tasks at once from line 2, not 4`},
		"a task after the array was waited for": {h + "s0,ana,0,60,1,,sweep,\npick,ana,0,60,1,sweep,,\ns1,ana,0,60,1,,sweep,\n",
			`t.csv:4: column 7 (array): array "sweep" gains a task after line 3 waited for all its tasks`},
		"a task after its own array": {h + "s0,ana,0,60,1,,sweep,\ns1,ana,0,60,1,sweep,sweep,\n",
			`t.csv:3: column 7 (array): array "sweep" gains a task after line 3 waited`},
		"after a later array": {h + "pick,ana,0,60,1,sweep,,\ns0,ana,0,60,1,,sweep,\n",
			`t.csv:2: column 6 (after): "sweep" is not the id of an earlier row nor the name of an earlier array`},
		"after a name of a row and an array": {h + "x,ana,0,60,1,,,\ny,ana,0,60,1,,x,\nz,ana,0,60,1,x,,\n",
			`t.csv:4: column 6 (after): "x" is both the id of an earlier row and an array's name`},
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

// TestReplayCSVArray: an array read from a plain CSV trace behind a
// dependency replays with its %N: on 16 GPUs, ten minute-long tasks with
// %3 after a 100-second step start at 100 s, run three at a time, and a
// job after the whole array starts when its last task completed.
func TestReplayCSVArray(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("id,user,submit_s,duration_s,gpus,after,array,array_max_running\nprep,ana,0,100,1,,,\n")
	for k := range 10 {
		b.WriteString("s" + string(rune('0'+k)) + ",ana,0,60,1,prep,sweep,%3\n")
	}
	b.WriteString("pick,ana,0,30,1,sweep,,\n")
	tr, err := ReadCSV(strings.NewReader(b.String()), "sweep.csv")
	if err != nil {
		t.Fatal(err)
	}
	w := &Workload{Jobs: tr.Jobs, Cluster: Cluster{Nodes: 2, GPUsPerNode: 8, Model: "H100"}, Scale: 1}
	r, err := Run(w, fcfsConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := peakRunning(r.Records, 2); got != 3 {
		t.Errorf("at most %d tasks ran at once, want 3", got)
	}
	last := r.Records[len(r.Records)-1]
	if want := 100*time.Second + 4*time.Minute; !last.Done || last.Start != want {
		t.Errorf("pick %+v, want it started at %s", last, want)
	}
	if m := Summarize("fcfs", r, 16, 0); m.Jobs != 12 || m.Makespan != (100*time.Second+4*time.Minute+30*time.Second).Seconds() {
		t.Errorf("%d jobs completed, makespan %.0f s", m.Jobs, m.Makespan)
	}
}
