package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// The queue page's submit form queues an array and a job that waits for
// another, as a plain form without JavaScript; bad specs are refused on
// the page with the field's sentence.
func TestQueueFormArrayAndAfter(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	ana := s.Login(t, "ana@example.com")
	submit := func(v url.Values) (int, string, string) {
		v.Set("executor", "node") // leases never wait for other jobs
		v.Set("command", "true")
		v.Set("priority", "normal")
		return submitPageForm(t, s, ana, "/queue", "/queue", v)
	}
	idOf := func(loc string) int64 {
		id, err := strconv.ParseInt(strings.TrimPrefix(loc, "/jobs/"), 10, 64)
		if err != nil {
			t.Fatalf("redirect %q", loc)
		}
		return id
	}
	st, _, loc := submit(url.Values{"gpu_count": {"1"}, "name": {"prep"}})
	if st != http.StatusSeeOther {
		t.Fatalf("prep: %d", st)
	}
	prep := idOf(loc)

	st, body, loc := submit(url.Values{"gpu_count": {"1"}, "name": {"sweep"}, "array": {"0-2%2"}, "after": {fmt.Sprintf("ok:%d", prep)}})
	if st != http.StatusSeeOther {
		t.Fatalf("the array: %d %s", st, regexp.MustCompile(`submit-error">[^<]*`).FindString(body))
	}
	first := idOf(loc)
	a, err := models.GetArray(t.Context(), s.DB.Bun, first)
	if err != nil {
		t.Fatal(err)
	}
	if a.TaskCount != 3 || a.MaxRunning != 2 {
		t.Errorf("array %+v, want 3 tasks, at most 2 running", a)
	}
	deps, err := models.DependenciesOf(t.Context(), s.DB.Bun, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(deps) != 1 || deps[0].OnJobID != prep || deps[0].Kind != "ok" {
		t.Errorf("the first task waits for %+v, want ok on job %d", deps, prep)
	}

	st, _, loc = submit(url.Values{"gpu_count": {"1"}, "after": {fmt.Sprintf("afterany:%d notok:%d", prep, first)}})
	if st != http.StatusSeeOther {
		t.Fatalf("Slurm's spelling and ours together: %d", st)
	}
	deps, err = models.DependenciesOf(t.Context(), s.DB.Bun, idOf(loc))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, d := range deps {
		kinds = append(kinds, fmt.Sprintf("%s:%d", d.Kind, d.OnJobID))
	}
	if d := cmp.Diff([]string{fmt.Sprintf("any:%d", prep), fmt.Sprintf("notok:%d", first)}, kinds); d != "" {
		t.Errorf("conditions (-want +got):\n%s", d)
	}

	tests := map[string]struct {
		v    url.Values
		want string
	}{
		"bad array": {url.Values{"gpu_count": {"1"}, "array": {"9-3"}}, "array"},
		"bad after": {url.Values{"gpu_count": {"1"}, "after": {"soon:12"}}, "after"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, body, _ := submit(tc.v)
			if st != http.StatusBadRequest || !strings.Contains(body, `data-testid="submit-error"`) || !strings.Contains(body, tc.want) {
				t.Errorf("%d, want 400 with the form's error naming %q", st, tc.want)
			}
		})
	}
}
