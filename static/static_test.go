package static

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"github.com/gpuscheduler/gpuscheduler/views"
)

func mustNew(t *testing.T) *Assets {
	t.Helper()
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func get(t *testing.T, h http.Handler, method, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestPathFormat(t *testing.T) {
	a := mustNew(t)
	for name, want := range map[string]string{
		"app.css":                      `^/static/app\.[0-9a-f]{10}\.css$`,
		"app.js":                       `^/static/app\.[0-9a-f]{10}\.js$`,
		"vendor/htmx-2.0.11.min.js":    `^/static/vendor/htmx-2\.0\.11\.min\.[0-9a-f]{10}\.js$`,
		"vendor/htmx-ext-sse-2.2.4.js": `^/static/vendor/htmx-ext-sse-2\.2\.4\.[0-9a-f]{10}\.js$`,
		"nope.css":                     `^/static/nope\.css$`,
	} {
		if got := a.Path(name); !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("Path(%q) = %q, want match %s", name, got, want)
		}
	}
	if a.Has("nope.css") || !a.Has("app.css") {
		t.Error("Has is wrong")
	}
}

func TestHashedPathImmutable(t *testing.T) {
	a := mustNew(t)
	types := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}
	if len(a.Names()) < 4 {
		t.Fatalf("embedded files = %v, want at least 4", a.Names())
	}
	for _, name := range a.Names() {
		w := get(t, a, http.MethodGet, a.Path(name))
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s: status %d", a.Path(name), w.Code)
		}
		if got := w.Header().Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q", name, got)
		}
		ext := name[strings.LastIndex(name, "."):]
		if got := w.Header().Get("Content-Type"); got != types[ext] {
			t.Errorf("%s: Content-Type %q, want %q", name, got, types[ext])
		}
		etag := w.Header().Get("ETag")
		if !strings.HasPrefix(etag, `"`) || len(etag) < 12 {
			t.Errorf("%s: ETag %q", name, etag)
		}
		want, _ := fs.ReadFile(files, name)
		if !bytes.Equal(w.Body.Bytes(), want) {
			t.Errorf("%s: body differs from embedded file", name)
		}
		if w := get(t, a, http.MethodGet, a.Path(name), "If-None-Match", etag); w.Code != http.StatusNotModified {
			t.Errorf("%s: If-None-Match status %d, want 304", name, w.Code)
		}
	}
}

func TestUnhashedNoCache(t *testing.T) {
	a := mustNew(t)
	w := get(t, a, http.MethodGet, "/static/app.css")
	if w.Code != http.StatusOK || w.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("status %d, Cache-Control %q", w.Code, w.Header().Get("Cache-Control"))
	}
	if w.Header().Get("ETag") == "" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers %v", w.Header())
	}
}

func TestNotFound(t *testing.T) {
	a := mustNew(t)
	for _, p := range []string{
		"/static/app.0000000000.css", // stale hash
		"/static/app.zzzzzzzzzz.css",
		"/static/../static.go",
		"/static/static.go",
		"/static/vendor/../app.css",
		"/static/./app.css",
		"/static//app.css",
		"/static/",
		"/static/vendor",
		"/static/vendor/",
		"/static/vendor/VERSIONS.md",
		"/static/APP.CSS",
	} {
		if w := get(t, a, http.MethodGet, p); w.Code != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, w.Code)
		}
	}
}

func TestHeadAndMethods(t *testing.T) {
	a := mustNew(t)
	w := get(t, a, http.MethodHead, a.Path("app.css"))
	if w.Code != http.StatusOK || w.Body.Len() != 0 || w.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD: status %d, body %d bytes, Content-Length %q", w.Code, w.Body.Len(), w.Header().Get("Content-Length"))
	}
	if w := get(t, a, http.MethodPost, a.Path("app.css")); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", w.Code)
	}
}

func TestStripPrefixMount(t *testing.T) {
	a := mustNew(t)
	h := http.StripPrefix("/static", a)
	if w := get(t, h, http.MethodGet, a.Path("app.js")); w.Code != http.StatusOK {
		t.Errorf("behind StripPrefix: status %d", w.Code)
	}
}

// TestReferencedFilesExist renders the layout with the real resolver and
// fetches every /static/ URL in the page.
func TestReferencedFilesExist(t *testing.T) {
	a := mustNew(t)
	var asked []string
	p := views.Page{Title: "x", Assets: func(name string) string {
		asked = append(asked, name)
		return a.Path(name)
	}}
	var buf bytes.Buffer
	if err := views.Layout(p, templ.NopComponent).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if len(asked) == 0 {
		t.Fatal("layout asked for no assets")
	}
	for _, name := range asked {
		if !a.Has(name) {
			t.Errorf("layout references %q, which is not embedded", name)
		}
	}
	urls := regexp.MustCompile(`(?:href|src)="(/static/[^"]+)"`).FindAllStringSubmatch(buf.String(), -1)
	if len(urls) != len(asked) {
		t.Errorf("found %d /static/ URLs in the page, asked for %d", len(urls), len(asked))
	}
	for _, m := range urls {
		w := get(t, a, http.MethodGet, m[1])
		if w.Code != http.StatusOK || !strings.Contains(w.Header().Get("Cache-Control"), "immutable") {
			t.Errorf("GET %s: status %d, Cache-Control %q", m[1], w.Code, w.Header().Get("Cache-Control"))
		}
	}
}

func TestVendoredVersion(t *testing.T) {
	b, err := fs.ReadFile(files, "vendor/htmx-2.0.11.min.js")
	if err != nil || !bytes.Contains(b, []byte(`version:"2.0.11"`)) {
		t.Errorf("vendored htmx is not 2.0.11 (err %v)", err)
	}
	if b, _ := fs.ReadFile(files, "vendor/htmx-ext-sse-2.2.4.js"); !bytes.Contains(b, []byte(`defineExtension("sse"`)) {
		t.Error("vendored file is not the sse extension")
	}
}
