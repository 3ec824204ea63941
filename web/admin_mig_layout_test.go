package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/browsertest"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// The nodes admin page declares a node's MIG layout: a layout its GPUs
// cannot take comes back as a 400 naming the problem; a good one is
// stored canonically, shown in the form, handed to the node's agent with
// its heartbeat, and the agent's report is shown beside it.
func TestAdminNodesPageDeclaresMIGLayout(t *testing.T) {
	t.Parallel()
	s, admin, _ := adminServer(t)
	nodeTok, n := s.NodeToken(t, "mig-a")
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBodyFor("m", 8)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	st, body, _ := postForm(t, s, admin, "/admin/nodes/mig-a/mig-layout", url.Values{"layout": {"gpu 0-3: 7x1g.10gb; gpu 4: 3x3g.40gb"}})
	if st != 400 || !strings.Contains(body, "mig-a: layout: GPU 4 (NVIDIA H100 80GB HBM3): 3×3g.40gb:") {
		t.Fatalf("a layout that does not fit: %d, want a 400 naming GPU 4:\n%s", st, body)
	}
	if st, body, _ = postForm(t, s, admin, "/admin/nodes/mig-a/mig-layout", url.Values{"layout": {"gpu 0-3: 7x1g.10gb; gpu 4: 2x3g.40gb"}}); st != 303 {
		t.Fatalf("declare: %d %s", st, body)
	}
	if st, out := s.Do(t, "POST", "/api/v1/nodes/"+itoa(n.ID)+"/heartbeat", nodeTok,
		`{"gpus":[],"mig_layout_report":"gpu 0: applied (had whole, want 7×1g.10gb): made 7 MIG devices; gpu 4: 2×3g.40gb waits: a job runs on it"}`); st != 200 ||
		!strings.Contains(string(out), `"mig_layout":"gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb"`) {
		t.Fatalf("heartbeat: %d %s, want the declared layout", st, out)
	}
	got, err := models.GetNode(context.Background(), s.DB.Bun, n.ID)
	if err != nil || got.MIGLayoutReportedAt == nil || time.Since(*got.MIGLayoutReportedAt) > time.Hour {
		t.Fatalf("report not kept: %+v %v", got, err)
	}
	page := getPage(t, admin, s.URL+"/admin/nodes")
	for _, want := range []string{`value="gpu 0-3: 7×1g.10gb; gpu 4: 2×3g.40gb"`, "gpu 4: 2×3g.40gb waits: a job runs on it"} {
		if !strings.Contains(page, want) {
			t.Errorf("the nodes page lacks %q:\n%s", want, page)
		}
	}

	tab := browsertest.New(t, 90*time.Second)
	if err := chromedp.Do(tab,
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(s.URL+"/admin/nodes"),
		chromedp.WaitVisible(`#dev-email`),
		chromedp.SetValue(`#dev-email`, "root@example.com"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-testid=nav-zone]`),
		chromedp.Navigate(s.URL+"/admin/nodes"),
		chromedp.WaitVisible(`[data-testid=mig-report]`),
	); err != nil {
		t.Fatalf("open the nodes page: %v", err)
	}
	poll(t, tab, "the report shown and no sideways scroll at 390 px", `
		document.querySelector('[data-testid=mig-report]').textContent.includes('waits: a job runs on it') &&
		document.documentElement.scrollWidth <= window.innerWidth`, 10*time.Second)
	browsertest.Screenshot(t, tab, "admin-nodes-mig-layout-phone")
}
