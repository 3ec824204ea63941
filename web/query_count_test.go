package web_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"
	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// queryCounter counts the SQL statements bun runs for requests that carry
// the header X-Count-Queries: a middleware puts a counter in the request's
// context, and a bun query hook adds to it. Background work (scheduling
// passes, River) has no counter and is not counted.
type queryCounter struct{}

type counterKey struct{}

func (queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (queryCounter) AfterQuery(ctx context.Context, _ *bun.QueryEvent) {
	if n, ok := ctx.Value(counterKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

// countQueries returns a function that GETs path with client c and returns
// how many statements it cost; s must have been started with queryCounter
// among its query hooks.
func countQueries(t *testing.T, s *testserver.Server) func(c *http.Client, path string) int64 {
	t.Helper()
	var mu sync.Mutex
	counters := map[string]*atomic.Int64{}
	s.Web.Echo.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id := c.Request().Header.Get("X-Count-Queries")
			mu.Lock()
			n := counters[id]
			mu.Unlock()
			if n != nil {
				c.SetRequest(c.Request().WithContext(context.WithValue(c.Request().Context(), counterKey{}, n)))
			}
			return next(c)
		}
	})
	seq := 0
	return func(c *http.Client, path string) int64 {
		seq++
		id := fmt.Sprint(seq)
		n := new(atomic.Int64)
		mu.Lock()
		counters[id] = n
		mu.Unlock()
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		req.Header.Set("X-Count-Queries", id)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		return n.Load()
	}
}

// seedJobs adds n queued jobs spread over 20 users, in one statement.
func seedJobs(t testing.TB, s *testserver.Server, n int) {
	t.Helper()
	_, err := s.DB.Bun.NewRaw(`WITH u AS (
		INSERT INTO users (email, name, role) SELECT 'seed-' || g || '-' || ? || '@example.com', 'seed', 'member' FROM generate_series(1, 20) g RETURNING id
	), us AS (SELECT array_agg(id) AS ids FROM u)
	INSERT INTO jobs (name, owner_id, state, command, workdir, env, job_type, gpu_count, gpu_model, priority, executor, submitted_at, updated_at)
	SELECT 'seeded-' || g, us.ids[1 + g % 20], 'queued', '', '', '{}', '', 1 + g % 4, '', 1 + g % 3, 'lease', now(), now()
	FROM generate_series(1, ?) g, us`, n, n).Exec(t.Context())
	if err != nil {
		t.Fatalf("seed %d jobs: %v", n, err)
	}
}

// seedEndedJobs adds n completed jobs, each with a run of one GPU that
// ended within the last hour (what history and accounting list), for the
// users seedJobs made, in one statement.
func seedEndedJobs(t testing.TB, s *testserver.Server, n int) {
	t.Helper()
	_, err := s.DB.Bun.NewRaw(`WITH us AS (SELECT array_agg(id ORDER BY id) AS ids FROM users WHERE email LIKE 'seed-%'),
	gs AS (SELECT array_agg(id ORDER BY id) AS ids FROM gpus),
	j AS (
		INSERT INTO jobs (name, owner_id, state, command, workdir, env, job_type, gpu_count, gpu_model, priority, executor,
			submitted_at, scheduled_at, started_at, ended_at, exit_code, updated_at)
		SELECT 'ended-' || g, us.ids[1 + g % array_length(us.ids, 1)], 'completed', '', '', '{}', '', 1, '', 2, 'lease',
			now() - interval '2 hours', now() - interval '1 hour', now() - interval '1 hour', now() - g * interval '1 second', 0, now()
		FROM generate_series(1, ?) g, us RETURNING id, owner_id, ended_at)
	INSERT INTO allocations (job_id, gpu_id, user_id, created_at, released_at, release_reason)
	SELECT j.id, gs.ids[1 + j.id % array_length(gs.ids, 1)], j.owner_id, now() - interval '1 hour', j.ended_at, 'completed' FROM j, gs`, n).Exec(t.Context())
	if err != nil {
		t.Fatalf("seed %d ended jobs: %v", n, err)
	}
}

// The queue, overview, bookings, job, history and accounting pages cost
// the same few SQL statements with 10 jobs as with 1,000 (queued and
// ended alike): no query per job, user or GPU.
func TestPagesIssueAConstantNumberOfQueries(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{QueryHooks: []bun.QueryHook{queryCounter{}}})
	nodeTok, _ := s.NodeToken(t, "gpu-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(8)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	browser := s.Login(t, "ana@example.com")
	count := countQueries(t, s)
	paths := []string{"/queue", "/fragments/queue", "/queue?state=waiting", "/", "/fragments/cluster", "/bookings", "/fragments/bookings",
		"/history", "/history?state=completed&limit=200", "/accounting", "/accounting?by=team"}
	// Each page is measured twice and the smaller count kept: the queue
	// page's cluster capacity is cached for 2s, so one of two consecutive
	// requests may refresh it.
	twice := func(p string) int64 { return min(count(browser, p), count(browser, p)) }
	measure := func() map[string]int64 {
		out := map[string]int64{}
		for _, p := range paths {
			out[p] = twice(p)
		}
		var id int64
		if err := s.DB.Bun.NewSelect().Model((*models.Job)(nil)).ColumnExpr("max(id)").Scan(t.Context(), &id); err != nil {
			t.Fatal(err)
		}
		out["/jobs/{id}"] = twice(fmt.Sprintf("/jobs/%d", id))
		return out
	}
	seedJobs(t, s, 10)
	seedEndedJobs(t, s, 10)
	few := measure()
	seedJobs(t, s, 990)
	seedEndedJobs(t, s, 990)
	many := measure()
	if diff := cmp.Diff(few, many); diff != "" {
		t.Errorf("statements per page grow with the number of jobs (-10 jobs +1000 jobs):\n%s", diff)
	}
	for p, n := range many {
		if n > 12 {
			t.Errorf("%s costs %d statements, want at most 12", p, n)
		}
	}
	t.Logf("statements per page with 1,000 jobs: %v", many)
}
