package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// TestQueuePageArray: the queue page shows an array as one row, its tasks
// counted by state and listed in a details element (no JavaScript needed);
// its row's cancel cancels every task; a job with a time limit shows it.
func TestQueuePageArray(t *testing.T) {
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
	st, body := s.Do(t, "POST", "/api/v1/queue/submit", tok, `{"gpu_count":1,"command":"python train.py","name":"sweep","array":"0-24%2","time_limit":"2h"}`)
	var sub api.Job
	if st != 201 || json.Unmarshal(body, &sub) != nil || sub.Array == nil {
		t.Fatalf("submit: %d %s", st, body)
	}
	waitFor(t, "two tasks placed", func() bool {
		n, _ := s.DB.Bun.NewSelect().Model((*models.Job)(nil)).Where("array_job_id = ? AND state <> 'queued'", sub.ID).Count(t.Context())
		return n == 2
	})
	var page string
	waitFor(t, "the array's row counted", func() bool {
		page = getPage(t, browser, s.URL+"/fragments/queue")
		return strings.Contains(page, "2 allocating, 23 queued")
	})
	if n := strings.Count(page, `data-testid="array-tasks"`); n != 1 {
		t.Errorf("the array has %d rows on the page, want 1", n)
	}
	for _, want := range []string{"<details", "array [0-24%2]", `data-testid="array-task"`, "task 24", fmt.Sprintf(`data-job-id="%d"`, sub.ID)} {
		if !strings.Contains(page, want) {
			t.Errorf("the queue lacks %q", want)
		}
	}
	if n := strings.Count(page, `data-testid="array-task"`); n != 25 {
		t.Errorf("%d tasks listed, want 25", n)
	}
	job := getPage(t, browser, fmt.Sprintf("%s/jobs/%d", s.URL, sub.ID))
	if want := "2h: then SIGTERM, 60 s of grace, SIGKILL, and it ends timeout"; !strings.Contains(job, want) {
		t.Errorf("the job page does not say %q", want)
	}
	resp, err := browser.PostForm(fmt.Sprintf("%s/jobs/%d/cancel", s.URL, sub.ID), url.Values{"_csrf": {s.CSRF(t, browser)}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel from the page: %d", resp.StatusCode)
	}
	n, err := s.DB.Bun.NewSelect().Model((*models.Job)(nil)).Where("array_job_id = ? AND state = 'queued'", sub.ID).Count(t.Context())
	if err != nil || n != 0 {
		t.Errorf("%d tasks still queued after the array's cancel (%v)", n, err)
	}
}
