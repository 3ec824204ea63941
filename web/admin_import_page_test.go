package web_test

import (
	"bytes"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

var confirmSheet = regexp.MustCompile(`(?s)<textarea name="sheet" hidden>(.*?)</textarea>`)

// uploadSheet posts the sheet as a file to /admin/import, as the form does.
func uploadSheet(t *testing.T, s *testserver.Server, c *http.Client, sheet string, fields url.Values) (int, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fields.Set("_csrf", s.CSRF(t, c))
	for k, vs := range fields {
		for _, v := range vs {
			_ = w.WriteField(k, v)
		}
	}
	fw, _ := w.CreateFormFile("file", "sheet.csv")
	_, _ = io.WriteString(fw, sheet)
	_ = w.Close()
	resp, err := c.Post(s.URL+"/admin/import", w.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Upload → preview (per row, nothing written) → confirm; the preview of a
// sheet with a bad row offers no confirm unless the valid rows may go in.
func TestAdminImportPage(t *testing.T) {
	t.Parallel()
	s := withNode(t, 8)
	root := s.Login(t, "root@example.com")
	member := s.Login(t, "ana@example.com")
	s.Login(t, "bo@example.com")
	sheet := importSheet("ana@example.com", "bo@example.com")

	st, body := uploadSheet(t, s, root, sheet, url.Values{"tz": {"Europe/Berlin"}})
	for _, want := range []string{"2 to create, 0 already imported, 5 invalid", `data-row="4" data-status="invalid"`, "clash with row 2",
		"unknown email nobody@example.com", "10:00–12:00 CET"} {
		if st != 200 || !strings.Contains(body, want) {
			t.Fatalf("preview: %d, lacks %q", st, want)
		}
	}
	if strings.Contains(body, `data-testid="import-confirm"`) || countBookings(t, s) != 0 {
		t.Fatalf("a preview with invalid rows offers to confirm, or wrote")
	}
	st, body = uploadSheet(t, s, root, sheet, url.Values{"tz": {"Europe/Berlin"}, "skip_invalid": {"on"}})
	m := confirmSheet.FindStringSubmatch(body)
	if st != 200 || m == nil || !strings.Contains(body, `data-testid="import-confirm"`) {
		t.Fatalf("preview skipping invalid rows: %d", st)
	}
	st, page, _ := postForm(t, s, root, "/admin/import/confirm", url.Values{"tz": {"Europe/Berlin"}, "skip_invalid": {"on"},
		"sheet": {html.UnescapeString(m[1])}})
	if st != 201 || !strings.Contains(page, "Imported 2 bookings.") || countBookings(t, s) != 2 {
		t.Fatalf("confirm: %d %d bookings", st, countBookings(t, s))
	}
	if st, _ := calGet(t, s, member, "/admin/import"); st != 403 {
		t.Fatalf("a member opens the import page: %d", st)
	}
}
