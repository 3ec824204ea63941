package web_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// GET /api/v1/history lists ended jobs, the latest end first, with the
// filters of the page and CLI; every filter and page is one row.
func TestHistoryAPIFilters(t *testing.T) {
	t.Parallel()
	f := newHistoryFixture(t)
	small := f.small // ended 10, 20, 30 minutes ago
	all := []int64{small[0], small[1], small[2], f.twice, f.canceled, f.failed, f.old}
	date := func(d time.Duration) string { return f.now.Add(d).UTC().Format(time.RFC3339) }
	tests := map[string]struct {
		tok   string
		query string
		want  []int64
		next  bool // a next_cursor comes with it
	}{
		"everyone's, latest end first": {f.anaTok, "", all, false},
		"a member sees everyone's":     {f.bobTok, "", all, false},
		"failed":                       {f.anaTok, "?state=failed", []int64{f.failed}, false},
		"failed and canceled":          {f.anaTok, "?state=failed,canceled", []int64{f.canceled, f.failed}, false},
		"completed":                    {f.adminTok, "?state=completed", []int64{small[0], small[1], small[2], f.twice, f.old}, false},
		"mine":                         {f.anaTok, "?mine=1", []int64{f.twice, f.canceled}, false},
		"one user's":                   {f.anaTok, "?user=" + url.QueryEscape(f.bob.Email), []int64{small[0], small[1], small[2], f.failed, f.old}, false},
		"my team's":                    {f.anaTok, "?team=1", []int64{f.twice, f.canceled}, false},
		"since 2h":                     {f.anaTok, "?since=2h", []int64{small[0], small[1], small[2], f.twice}, false},
		"since 1d, failed":             {f.anaTok, "?since=1d&state=failed", []int64{f.failed}, false},
		"from and to":                  {f.anaTok, "?from=" + url.QueryEscape(date(-6*time.Hour)) + "&to=" + url.QueryEscape(date(-2*time.Hour)), []int64{f.canceled, f.failed}, false},
		"to excludes its instant":      {f.anaTok, "?to=" + url.QueryEscape(date(-72*time.Hour)), []int64{}, false},
		"since and until, as times":    {f.anaTok, "?since=" + url.QueryEscape(date(-6*time.Hour)) + "&until=" + url.QueryEscape(date(-2*time.Hour)), []int64{f.canceled, f.failed}, false},
		"since a date":                 {f.anaTok, "?since=2026-11-16", []int64{small[0], small[1], small[2], f.twice, f.canceled, f.failed}, false},
		"first page of 3":              {f.anaTok, "?limit=3", all[:3], true},
		"last page exactly full":       {f.anaTok, "?limit=7", all, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st, h, body := f.history(t, tc.tok, tc.query)
			if st != 200 {
				t.Fatalf("%d %s", st, body)
			}
			if d := cmp.Diff(tc.want, jobIDs(h)); d != "" {
				t.Errorf("jobs (-want +got):\n%s", d)
			}
			if (h.NextCursor != "") != tc.next {
				t.Errorf("next_cursor %q, want one: %v", h.NextCursor, tc.next)
			}
		})
	}

	// Pages follow each other with the cursor, the filters kept, to the end.
	t.Run("pages", func(t *testing.T) {
		t.Parallel()
		var got []int64
		q := "?limit=2&state=completed"
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("no end to the pages")
			}
			st, h, body := f.history(t, f.bobTok, q)
			if st != 200 || h.Limit != 2 || len(h.Jobs) > 2 {
				t.Fatalf("page %d: %d limit %d %s", pages, st, h.Limit, body)
			}
			got = append(got, jobIDs(h)...)
			if h.NextCursor == "" {
				break
			}
			q = "?limit=2&state=completed&cursor=" + url.QueryEscape(h.NextCursor)
		}
		if d := cmp.Diff([]int64{small[0], small[1], small[2], f.twice, f.old}, got); d != "" {
			t.Errorf("paged (-want +got):\n%s", d)
		}
	})

	// What a run-twice job shows: both runs' GPU time, time held, the last run's GPUs.
	t.Run("a job run twice", func(t *testing.T) {
		t.Parallel()
		_, h, _ := f.history(t, f.anaTok, "?mine=1&state=completed")
		if len(h.Jobs) != 1 {
			t.Fatalf("jobs: %+v", h.Jobs)
		}
		j := h.Jobs[0]
		zero := 0
		want := api.HistoryJob{ID: f.twice, Name: j.Name, User: f.ana.Email, Team: "vision", State: "completed", ExitCode: &zero,
			RequestedGPUs: 2, Executor: j.Executor, GPUs: []string{"sim-node-1:4", "sim-node-1:5"}, SubmittedAt: j.SubmittedAt,
			StartedAt: j.StartedAt, EndedAt: f.now.Add(-time.Hour), ElapsedSeconds: 2 * 3600, GPUHours: 4, Runs: 2, Retries: 1}
		if d := cmp.Diff(want, j); d != "" {
			t.Errorf("job (-want +got):\n%s", d)
		}
	})

	refused := map[string]string{
		"a state that is not an end": "?state=running",
		"limit 0":                    "?limit=0",
		"limit over the cap":         fmt.Sprintf("?limit=%d", 201),
		"a cursor it did not give":   "?cursor=bm90LWEtY3Vyc29y",
		"a bad date":                 "?from=yesterday",
		"to before from":             "?from=2026-11-20&to=2026-11-10",
		"a bad span":                 "?since=7x",
		"an unknown user":            "?user=nobody@example.com",
		"team without one":           "?team=1",
	}
	for name, q := range refused {
		t.Run("refused: "+name, func(t *testing.T) {
			t.Parallel()
			st, _, body := f.history(t, f.bobTok, q)
			if st != 400 && st != 404 {
				t.Fatalf("%s: %d %s", q, st, body)
			}
			if msg, code := testserver.APIError(t, body); msg == "" || code == "" {
				t.Errorf("%s: no error sentence: %s", q, body)
			}
		})
	}
}
