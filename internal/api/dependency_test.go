package api

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseDependencies: gpusched's --after and Slurm's --dependency give
// the same conditions; what is not supported says so.
func TestParseDependencies(t *testing.T) {
	t.Parallel()
	task := func(n int) *int { return &n }
	tests := map[string]struct {
		after, slurm string
		want         []Dependency
		bad          string
	}{
		"ok, two jobs":  {after: "ok:12,13", want: []Dependency{{Kind: "ok", JobID: 12}, {Kind: "ok", JobID: 13}}},
		"bare id (any)": {after: "12", want: []Dependency{{Kind: "any", JobID: 12}}},
		"notok":         {after: "notok:7", want: []Dependency{{Kind: "notok", JobID: 7}}},
		"array task":    {after: "any:7_3", want: []Dependency{{Kind: "any", JobID: 7, ArrayTaskID: task(3)}}},
		"slurm mixed": {slurm: "afterok:12:13,afterany:14,afternotok:15,singleton", want: []Dependency{
			{Kind: "ok", JobID: 12}, {Kind: "ok", JobID: 13}, {Kind: "any", JobID: 14}, {Kind: "notok", JobID: 15}, {Kind: "singleton"}}},
		"unknown kind":     {after: "okay:12", bad: "want ok:ID"},
		"not an id":        {after: "ok:abc", bad: `"abc" is not a job id`},
		"slurm or":         {slurm: "afterok:1?afterok:2", bad: "not supported"},
		"slurm after":      {slurm: "after:12", bad: "after is not supported"},
		"slurm singleton":  {slurm: "singleton:3", bad: "singleton takes no job ids"},
		"slurm nonsense":   {slurm: "before:3", bad: `"before" is not afterok`},
		"negative task id": {after: "ok:7_-1", bad: "is not an array task"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []Dependency
			var err error
			if tc.slurm != "" {
				got, err = ParseSlurmDependency(tc.slurm)
			} else {
				got, err = ParseAfter(tc.after)
			}
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("got %v, %v; want an error saying %q", got, err, tc.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
