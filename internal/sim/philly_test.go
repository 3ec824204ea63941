package sim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReadPhilly reads a hand-made excerpt in the cluster_job_log format
// (the machine that wrote this could not fetch the real trace).
func TestReadPhilly(t *testing.T) {
	t.Parallel()
	tr, err := ReadTrace("testdata/philly-sample.json", "", ReadOptions{Users: 15, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{
		{ID: 1, Name: "application_1506638472019_10238", User: 2, Runtime: time.Hour, GPUs: 2, Priority: 2},
		{ID: 2, Name: "application_1506638472019_10239", User: 1, Submit: 10 * time.Minute, Runtime: 30 * time.Minute, GPUs: 8, Priority: 2},
	}
	if d := cmp.Diff(want, tr.Jobs); d != "" {
		t.Errorf("jobs (-want +got):\n%s", d)
	}
	if tr.Format != FormatPhilly || tr.Rows != 4 || tr.Skipped["never ran"] != 2 || len(tr.Users) != 3 {
		t.Errorf("trace %+v", tr)
	}
}
