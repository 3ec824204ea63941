package web_test

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// countingBody is a multipart body of a _csrf field and a file of size
// zero bytes, counting what the server reads of it.
type countingBody struct {
	r    io.Reader
	read atomic.Int64
}

const hugeBoundary = "hostileboundary"

func newCountingBody(csrf string, size int64) *countingBody {
	head := "--" + hugeBoundary + "\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n" + csrf + "\r\n" +
		"--" + hugeBoundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"sheet.csv\"\r\nContent-Type: text/csv\r\n\r\n"
	tail := "\r\n--" + hugeBoundary + "--\r\n"
	return &countingBody{r: io.MultiReader(strings.NewReader(head), io.LimitReader(zeros{}, size), strings.NewReader(tail))}
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read.Add(int64(n))
	return n, err
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// sendHuge posts a streamed (chunked) multipart body of size bytes to path
// with c and returns the status and how much of the body was read.
func sendHuge(t *testing.T, s *testserver.Server, c *http.Client, path string, size int64) (int, int64) {
	t.Helper()
	body := newCountingBody(s.CSRF(t, c), size)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = -1 // streamed: no length to refuse it by
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+hugeBoundary)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	readAll(t, resp)
	return resp.StatusCode, body.read.Load()
}

// A huge multipart body is not parsed before anyone is known: sign-out
// (anonymous or not) and every page refuse it before reading it; the
// admin import, the one upload, takes it only from a signed-in admin and
// stops reading at its limit.
func TestBodyLimitsBeforeParsing(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	anon := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	member := s.Login(t, "member@example.com")
	admin := s.Login(t, "admin@example.com")
	for email, role := range map[string]string{"member@example.com": models.RoleMember, "admin@example.com": models.RoleAdmin} {
		if err := models.SetUserRole(t.Context(), s.DB.Bun, calUserID(t, s, email), role); err != nil {
			t.Fatal(err)
		}
	}
	// What the client wrote includes what the sockets buffer (a few MB on
	// loopback); a body parsed whole is read to its end.
	const mb = 1 << 20
	tests := map[string]struct {
		c        *http.Client
		path     string
		size     int64
		status   int
		readMost int64
	}{
		"sign-out, anonymous":         {anon, "/auth/logout", 64 * mb, http.StatusUnsupportedMediaType, 16 * mb},
		"sign-out, signed in":         {member, "/auth/logout", 64 * mb, http.StatusUnsupportedMediaType, 16 * mb},
		"a page form":                 {member, "/bookings", 64 * mb, http.StatusUnsupportedMediaType, 16 * mb},
		"dev sign-in":                 {anon, "/auth/dev", 64 * mb, http.StatusUnsupportedMediaType, 16 * mb},
		"the import, as a member":     {member, "/admin/import", 64 * mb, http.StatusForbidden, 16 * mb},
		"the import, anonymous":       {anon, "/admin/import", 64 * mb, http.StatusUnauthorized, 16 * mb},
		"the import, admin, too big":  {admin, "/admin/import", 64 * mb, http.StatusRequestEntityTooLarge, 16 * mb},
		"the import, admin, in range": {admin, "/admin/import", mb / 2, http.StatusBadRequest, mb},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st, read := sendHuge(t, s, tc.c, tc.path, tc.size)
			if st != tc.status || read > tc.readMost {
				t.Fatalf("%d after the server read %d bytes; want %d, at most %d read", st, read, tc.status, tc.readMost)
			}
		})
	}
}

// Every route of the server, whatever its method and group, answers 413 to
// a body whose declared length is over its limit, before reading it.
func TestBodyLimitOnEveryRoute(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{RiverUI: true})
	type route struct{ method, path string }
	var routes []route
	for _, r := range s.Web.Echo.Routes() {
		if r.Method == echoRouteNotFound {
			continue
		}
		p := strings.NewReplacer(":id", "1", ":name", "gpu-a", ":cmd", "1", ":job", "1", ":scope", "team", ":prefix", "abc", ":provider", "dev", ":file", "x.ics", "*", "x").Replace(r.Path)
		routes = append(routes, route{r.Method, p})
	}
	sort.Slice(routes, func(i, j int) bool { return routes[i].path+routes[i].method < routes[j].path+routes[j].method })
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, r := range routes {
		limit := int64(web.DefaultBodyLimit)
		if strings.HasPrefix(r.path, "/admin/import") {
			limit = web.UploadBodyLimit
		}
		if strings.HasPrefix(r.path, "/s/") {
			limit = web.SessionBodyLimit // declared, refused before a byte is read
		}
		body := io.LimitReader(zeros{}, limit+1)
		req, err := http.NewRequestWithContext(t.Context(), r.method, s.URL+r.path, body)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = limit + 1
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", r.method, r.path, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("%s %s with %d bytes: %d, want 413", r.method, r.path, limit+1, resp.StatusCode)
		}
	}
	t.Log(fmt.Sprintf("%d routes", len(routes)))
}
