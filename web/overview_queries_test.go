package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// overviewCountedKey marks the request whose queries a overviewQueryCounter counts.
type overviewCountedKey struct{}

// overviewQueryCounter counts the queries bun runs for a context carrying overviewCountedKey.
type overviewQueryCounter struct{ n atomic.Int64 }

func (q *overviewQueryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	if ctx.Value(overviewCountedKey{}) != nil {
		q.n.Add(1)
	}
	return ctx
}

func (q *overviewQueryCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

// The overview (page and live fragment) runs a fixed number of queries
// whatever the cluster's size: no query per node, GPU, job or booking.
func TestOverviewQueriesDoNotGrow(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	counter := &overviewQueryCounter{}
	s.DB.Bun.AddQueryHook(counter)
	browser := s.Login(t, "ana@example.com")
	cookies := browser.Jar.Cookies(mustURL(t, s.URL))
	ana, err := models.GetUserByEmail(context.Background(), s.DB.Bun, "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	count := func(path string) int64 {
		req := httptest.NewRequest("GET", path, nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		// Warm the session cache first: the look-up of a
		// session costs queries once per cache period, not per page.
		s.Web.Echo.ServeHTTP(httptest.NewRecorder(), req.Clone(req.Context()))
		req = req.WithContext(context.WithValue(req.Context(), overviewCountedKey{}, true))
		rec := httptest.NewRecorder()
		counter.n.Store(0)
		s.Web.Echo.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		return counter.n.Load()
	}
	grow := func(nodes int) {
		for i := range nodes {
			name := fmt.Sprintf("n%d-%d", nodes, i)
			tok, _ := s.NodeToken(t, name)
			if st, body := s.Do(t, "POST", "/api/v1/nodes/register", tok, registerBodyFor(name, 8)); st != 200 {
				t.Fatalf("register: %d %s", st, body)
			}
		}
		for range 5 * nodes {
			j := &models.Job{OwnerID: ana.ID, GPUCount: 1, Executor: models.ExecutorLease}
			if err := models.CreateJob(context.Background(), s.DB.Pool, j, testNow()); err != nil {
				t.Fatal(err)
			}
		}
	}
	grow(1)
	small := []int64{count("/"), count("/fragments/cluster")}
	grow(4)
	large := []int64{count("/"), count("/fragments/cluster")}
	t.Logf("queries: %v with 1 node, %v with 5 nodes", small, large)
	if small[0] != large[0] || small[1] != large[1] || small[0] < 4 || small[0] > 8 {
		t.Errorf("queries for / and /fragments/cluster: %v with 1 node, %v with 5 nodes; want the same, and few", small, large)
	}
}
