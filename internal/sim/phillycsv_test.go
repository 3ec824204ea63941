package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReadPhillyCSV reads the first 40 jobs of one virtual cluster of the
// Pollux artifact's Philly table (testdata/README.md says where from).
func TestReadPhillyCSV(t *testing.T) {
	t.Parallel()
	tr, err := ReadTrace("testdata/philly-vc-6c71a0-excerpt.csv", "", ReadOptions{Users: 15, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != FormatPhillyCSV || tr.Rows != 40 || len(tr.Jobs) != 40 || len(tr.Users) != 16 {
		t.Fatalf("format %q, %d rows, %d jobs, %d users", tr.Format, tr.Rows, len(tr.Jobs), len(tr.Users))
	}
	// Times are relative to the earliest arrival, line 15's 2017-09-27
	// 14:36:20 (the table is not in time order): line 2 arrived at
	// 2017-09-29 07:58:32 and ran 860,662 s, line 3 at 2017-10-09 04:20:51.
	want := []Job{
		{ID: 1, Name: "philly-2", User: userOf("philly-2", 1, 15), Submit: 41*time.Hour + 22*time.Minute + 12*time.Second,
			Runtime: 860662 * time.Second, GPUs: 1, Priority: 2},
		{ID: 2, Name: "philly-3", User: userOf("philly-3", 1, 15), Submit: 277*time.Hour + 44*time.Minute + 31*time.Second,
			Runtime: 111 * time.Second, GPUs: 1, Priority: 2},
	}
	if d := cmp.Diff(want, tr.Jobs[:2]); d != "" {
		t.Errorf("first jobs (-want +got):\n%s", d)
	}
	if j := tr.Jobs[13]; j.Name != "philly-15" || j.Submit != 0 || j.Runtime != 955540*time.Second {
		t.Errorf("the earliest job %+v, want philly-15 at 0 running 955,540 s", j)
	}
	for _, j := range tr.Jobs {
		if j.Submit < 0 {
			t.Errorf("job %s arrives %v before the earliest", j.Name, j.Submit)
		}
	}
}

func TestReadPhillyCSVErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const head = "timestamp,duration,num_gpus,gpu_time,cluster\n"
	for name, tc := range map[string]struct{ body, want string }{
		"bad time":      {head + "2017-10-09T07:01:55Z,66.0,1,66.0,x\n", "philly.csv:2: column 1 (timestamp)"},
		"no GPU":        {head + "2017-10-09 07:01:55,66.0,0,0,x\n", "column 3 (num_gpus)"},
		"negative time": {head + "2017-10-09 07:01:55,-1,1,66.0,x\n", "column 2 (duration)"},
		"no duration":   {"timestamp,num_gpus\n2017-10-09 07:01:55,1\n", "duration"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"), "philly.csv")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := ReadTrace(path, FormatPhillyCSV, ReadOptions{Users: 15, Seed: 1})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
