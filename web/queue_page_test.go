package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// The queue page shows waiting jobs with their place and reason, and a
// member can cancel their own job from it (CSRF-protected form).
func TestQueuePage(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	browser := s.Login(t, "ana@example.com")
	ana, err := models.GetUserByEmail(t.Context(), s.DB.Bun, "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := models.CreateUserToken(t.Context(), s.DB.Bun, ana.ID, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if st, body := s.Do(t, "POST", "/api/v1/cluster/gpu-allocate", tok, `{"gpu_count":8,"timeout_s":20,"name":"hog"}`); st != 200 {
		t.Fatalf("hold all GPUs: %d %s", st, body)
	}
	_, body := s.Do(t, "POST", "/api/v1/queue/submit", tok, `{"gpu_count":2,"executor":"lease","name":"waiter"}`)
	var waiting struct{ ID int64 }
	mustJSON(t, body, &waiting)

	page := getPage(t, browser, s.URL+"/queue")
	for _, want := range []string{`data-testid="queue-live"`, `sse-connect="/events?topics=jobs,queue"`, "waiter", "hog", `aria-current="page">Queue`} {
		if !strings.Contains(page, want) {
			t.Errorf("queue page lacks %q", want)
		}
	}
	// The waiting job's reason arrives with the next pass.
	waitFor(t, "an explanation on the page", func() bool {
		return strings.Contains(getPage(t, browser, s.URL+"/fragments/queue"), `data-code="no_capacity"`)
	})

	token := s.CSRF(t, browser)
	resp, err := browser.PostForm(fmt.Sprintf("%s/jobs/%d/cancel", s.URL, waiting.ID), url.Values{"_csrf": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel from the page: %d", resp.StatusCode)
	}
	j, _ := models.GetJob(t.Context(), s.DB.Bun, waiting.ID)
	if j.State != models.JobCanceled {
		t.Fatalf("job after cancel: %s", j.State)
	}
	// Without the CSRF token the form is refused.
	resp, _ = browser.PostForm(fmt.Sprintf("%s/jobs/%d/cancel", s.URL, waiting.ID), url.Values{})
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("cancel without CSRF: %d", resp.StatusCode)
	}
}

func getPage(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	return string(b)
}
