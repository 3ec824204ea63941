package web_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

// Every route under /api/v1 is in the OpenAPI document, with its method.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	status, body := s.Do(t, "GET", "/api/v1/openapi.json", "", "")
	if status != 200 {
		t.Fatalf("openapi.json: %d", status)
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	mustJSON(t, body, &doc)
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi version %q", doc.OpenAPI)
	}
	param := regexp.MustCompile(`:([a-z_]+)`)
	checked := 0
	for _, r := range s.Web.Echo.Routes() {
		// Groups with middleware add echo's own catch-all routes; skip those.
		if !strings.HasPrefix(r.Path, "/api/v1/") || strings.HasSuffix(r.Path, "*") || strings.HasPrefix(r.Method, "echo_") {
			continue
		}
		path := param.ReplaceAllString(strings.TrimPrefix(r.Path, "/api/v1"), "{$1}")
		if _, ok := doc.Paths[path][strings.ToLower(r.Method)]; !ok {
			t.Errorf("%s %s is not in openapi.json", r.Method, path)
		}
		checked++
	}
	if checked < 4 {
		t.Fatalf("only %d API routes found", checked)
	}
}
