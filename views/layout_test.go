package views

import (
	"strings"
	"testing"

	"github.com/a-h/templ"
)

func TestLayoutSignedIn(t *testing.T) {
	p := Page{
		Title: "Cluster", Nav: "cluster", CSRF: `tok"</script><b>`, DevMode: true, Flash: "Saved <b>",
		User:   &User{ID: 1, Email: "ada@example.com", Name: "Ada", Role: "member"},
		Assets: func(name string) string { return "/static/h/" + name },
	}
	html := render(t, Layout(p, templ.Raw(`<p id="body">hi</p>`)))
	for _, want := range []string{
		"<!doctype html>",
		`<html lang="en">`,
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		`<title>Cluster · GPUScheduler</title>`,
		`href="/static/h/app.css"`,
		`src="/static/h/vendor/htmx-2.0.11.min.js" defer`,
		`src="/static/h/vendor/htmx-ext-sse-2.2.4.js" defer`,
		`<meta name="csrf-token" content="tok&#34;&lt;/script&gt;&lt;b&gt;">`,
		// JSON (quote escaped, < and > as \u003c) and then HTML-escaped for the attribute.
		`hx-headers="{&#34;X-CSRF-Token&#34;:&#34;tok\&#34;\u003c/script\u003e\u003cb\u003e&#34;}"`,
		`<a href="/" aria-current="page">Cluster</a>`,
		`data-testid="dev-badge"`,
		`>Ada</span>`,
		`action="/auth/logout"`,
		`name="_csrf" value="tok&#34;&lt;/script&gt;&lt;b&gt;"`,
		`data-testid="flash">Saved &lt;b&gt;</div>`,
		`<main id="main" class="container">`,
		`<p id="body">hi</p>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("layout lacks %s", want)
		}
	}
	for _, bad := range []string{`href="/admin/users"`, `href="/login"`, `</script><b>`} {
		if strings.Contains(html, bad) {
			t.Errorf("layout contains %s", bad)
		}
	}
}

func TestLayoutAdminAndSignedOut(t *testing.T) {
	admin := render(t, Layout(Page{Nav: "admin", User: &User{Email: "root@example.com", Role: "admin"}}, templ.NopComponent))
	for _, want := range []string{`<a href="/admin/users" aria-current="page">Admin</a>`, `>root@example.com</span>`, `<title>GPUScheduler</title>`, `href="/static/app.css"`} {
		if !strings.Contains(admin, want) {
			t.Errorf("admin layout lacks %s", want)
		}
	}
	out := render(t, Layout(Page{}, templ.NopComponent))
	if !strings.Contains(out, `href="/login">Sign in</a>`) {
		t.Error("signed-out layout lacks the sign-in link")
	}
	for _, bad := range []string{`/auth/logout`, `href="/admin/users"`, `dev-badge`, `data-testid="flash"`, `aria-current`} {
		if strings.Contains(out, bad) {
			t.Errorf("signed-out layout contains %s", bad)
		}
	}
	var nilUser *User
	if nilUser.IsAdmin() || nilUser.DisplayName() != "" {
		t.Error("nil user methods")
	}
}

func TestErrorPage(t *testing.T) {
	html := render(t, ErrorPageView(Page{Title: "Not found"}, ErrorPage{Status: 404, RequestID: "req-<1>"}))
	for _, want := range []string{`data-status="404"`, `>404</p>`, `<h1>Not Found</h1>`,
		`couldn&#39;t find`, `<code data-testid="request-id">req-&lt;1&gt;</code>`, `href="/"`} {
		if !strings.Contains(html, want) {
			t.Errorf("error page lacks %s", want)
		}
	}
	html = render(t, ErrorPageView(Page{}, ErrorPage{Status: 500, Title: "Database down", Message: "Try later."}))
	for _, want := range []string{`<h1>Database down</h1>`, `Try later.`} {
		if !strings.Contains(html, want) {
			t.Errorf("error page lacks %s", want)
		}
	}
	if strings.Contains(html, "request-id") {
		t.Error("request id shown although empty")
	}
	if got := errorMessage(ErrorPage{Status: 503}); !strings.Contains(got, "server") {
		t.Errorf("5xx fallback message %q", got)
	}
	if errorCode(ErrorPage{}) != "Error" || errorTitle(ErrorPage{Status: 799}) != "Something went wrong" {
		t.Error("fallbacks for an unset status")
	}
}

func TestDevLoginPage(t *testing.T) {
	html := render(t, DevLoginPage(Page{CSRF: "c1"}, DevLogin{Email: `a"b@x`, Next: "/queue?x=1&y=2", Error: "No such user"}))
	for _, want := range []string{
		`action="/auth/dev"`, `method="post"`,
		`name="_csrf" value="c1"`,
		`name="next" value="/queue?x=1&amp;y=2"`,
		`type="email" required`,
		`value="a&#34;b@x"`,
		`role="alert"`, `No such user`, `aria-invalid="true"`,
		`only available on loopback`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("dev login lacks %s", want)
		}
	}
	if strings.Contains(render(t, DevLoginPage(Page{}, DevLogin{})), `role="alert"`) {
		t.Error("error shown although empty")
	}
}
