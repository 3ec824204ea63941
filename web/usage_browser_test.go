package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// usageCluster builds what the overview and usage pages show: three nodes
// (one drained by an admin, one down), a member's job whose GPU idles,
// two hours of telemetry history rolled up, and queue samples.
func usageCluster(t *testing.T, s *testserver.Server) (member *models.User) {
	t.Helper()
	ctx := context.Background()
	for name, gpus := range map[string]int{"gpu-a": 4, "gpu-b": 4, "gpu-c": 2} {
		tok, _ := s.NodeToken(t, name)
		if st, body := s.Do(t, "POST", "/api/v1/nodes/register", tok, registerBodyFor(name, gpus)); st != 200 {
			t.Fatalf("register %s: %d %s", name, st, body)
		}
	}
	adminTok, _ := s.UserToken(t, models.RoleAdmin)
	if st, body := s.Do(t, "POST", "/api/v1/cluster/nodes/gpu-b/drain", adminTok, ""); st != 200 {
		t.Fatalf("drain: %d %s", st, body)
	}
	// gpu-c stopped beating: what the liveness job records.
	if _, err := s.DB.Bun.ExecContext(ctx, `UPDATE nodes SET status = 'down' WHERE name = 'gpu-c'`); err != nil {
		t.Fatal(err)
	}
	memberTok, member := s.UserToken(t, models.RoleMember)
	if st, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", memberTok, `{"gpu_count":1,"timeout_s":60,"name":"idle-notebook"}`); st != 200 {
		t.Fatalf("allocate: %d %s", st, body)
	}
	now := time.Now()
	// The member's GPU has idled for an hour (what MarkIdle records from heartbeats).
	res, err := s.DB.Bun.ExecContext(ctx, `UPDATE gpus SET idle_since = ? WHERE id IN (SELECT gpu_id FROM allocations WHERE released_at IS NULL)`,
		now.Add(-time.Hour))
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("mark the member's GPU idle: %d rows (%v)", n, err)
	}
	// Two hours of telemetry every 30s: each GPU at its own level, with a wave.
	if _, err := s.DB.Bun.ExecContext(ctx, `
INSERT INTO gpu_samples (at, gpu_id, node_id, utilization_pct, memory_used_mib, temperature_c, power_w)
SELECT ts, g.id, g.node_id, least(100, greatest(0, (g.idx * 20 + 30 * sin(extract(epoch FROM ts) / 900 + g.id))::int)), 4096, 55, 300
FROM gpus g, generate_series(?::timestamptz - interval '2 hours', ?::timestamptz, interval '30 seconds') AS ts`, now, now); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := models.SampleQueue(ctx, s.DB.Bun, now.Add(-time.Duration(i)*20*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := jobs.RollUpTelemetry(ctx, *s.Deps); err != nil {
		t.Fatal(err)
	}
	return member
}

// In a real browser: the overview's tiles show drained, down and idle GPUs
// and the member's job at a glance; the usage page draws its uPlot charts.
// Screenshots at laptop and phone widths go to screenshotDir.
func TestUsageAndOverviewInBrowser(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	member := usageCluster(t, s)
	tab := browsertest.New(t, 90*time.Second)

	count := func(sel string) string {
		return fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)
	}
	err := chromedp.Do(tab,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(s.URL+"/"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, member.Email),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=my-jobs]`),
	)
	if err != nil {
		t.Fatalf("sign in and open the overview: %v", err)
	}
	checks := map[string]struct {
		js   string
		want int
	}{
		"drained node's tiles say so": {count(`[data-node-status=draining] [data-field=condition]`), 4},
		"down node's tiles say so":    {count(`[data-node-status=down] [data-field=condition]`), 2},
		"the idle GPU is flagged":     {count(`[data-testid=gpu-tile][data-state=allocated] [data-field=idle]`), 1},
		"my job at a glance":          {count(`[data-testid=my-job]`), 1},
	}
	// The section refreshes itself (SSE, poll): wait for each to hold.
	for name, c := range checks {
		cond := fmt.Sprintf("(%s) === %d", c.js, c.want)
		if _, err := chromedp.Run(tab, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			got, _ := chromedp.Run(tab, chromedp.Evaluate[int](c.js))
			html, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('.nodes')?.outerHTML ?? ''`))
			t.Errorf("%s: %d, want %d (%v)\n%s", name, got, c.want, err, html)
		}
	}
	texts, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-node-status=down] [data-field=condition]').textContent + '|' +
		document.querySelector('[data-node-status=draining] [data-field=condition]').textContent + '|' +
		document.querySelector('[data-testid=total-idle] .stat-value').textContent`))
	if err != nil || texts != "node down|node drained|1" {
		t.Errorf("condition texts and idle total: %q (%v)", texts, err)
	}
	browsertest.Screenshot(t, tab, "usage-overview-laptop")
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	browsertest.Screenshot(t, tab, "usage-overview-phone")

	// The usage page: six uPlot charts drawn from /usage/data.
	err = chromedp.Do(tab,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(s.URL+"/usage?range=day"),
		chromedp.WaitVisible(`#usage-charts[data-drawn=true]`),
	)
	if err != nil {
		msg, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById('usage-charts')?.getAttribute('data-error') ?? ''`))
		t.Fatalf("usage charts not drawn: %v %s", err, msg)
	}
	for name, c := range map[string]struct {
		js   string
		want int
	}{
		"a canvas per chart":                {count(`#usage-charts [data-chart] .uplot canvas`), 7},
		"node lines in the utilization one": {`document.querySelectorAll('[data-chart=util-node] .u-legend .u-series').length - 1`, 3},
		"GPU lines":                         {`document.querySelectorAll('[data-chart=util-gpu] .u-legend .u-series').length - 1`, 10},
		"the node table":                    {count(`[data-testid=usage-nodes] tbody tr`), 3},
	} {
		got, err := chromedp.Run(tab, chromedp.Evaluate[int](c.js))
		if err != nil || got != c.want {
			t.Errorf("%s: %d, want %d (%v)", name, got, c.want, err)
		}
	}
	browsertest.Screenshot(t, tab, "usage-page-laptop")
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(`#usage-charts[data-drawn=true]`)); err != nil {
		t.Fatal(err)
	}
	wide, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth + 1`))
	if err != nil || !wide {
		t.Errorf("the usage page scrolls sideways at phone width (%v)", err)
	}
	browsertest.Screenshot(t, tab, "usage-page-phone")
}
