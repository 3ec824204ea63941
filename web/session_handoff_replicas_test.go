package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Two control-plane replicas over one database, as behind a load balancer:
// a handoff the dashboard of replica A mints is redeemed by the session
// origin of replica B, once (a second try, on either replica, is a 404),
// and the cookie B sets is good on A's session origin too.
func TestSessionHandoffAcrossReplicas(t *testing.T) {
	t.Parallel()
	a := testserver.NewWith(t, testserver.Options{SessionOrigin: true})
	b := testserver.NewWith(t, testserver.Options{SessionOrigin: true, DB: a.DB})
	nodeTok, _ := a.NodeToken(t, "replica-node")
	if st, body := a.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBody(2)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	tok, owner := a.UserToken(t, models.RoleMember)
	st, body := a.Do(t, "POST", "/api/v1/sessions", tok, `{"kind":"web","command":"python3 -m http.server $PORT --bind 127.0.0.1"}`)
	if st != http.StatusCreated {
		t.Fatalf("create session: %d %s", st, body)
	}
	var sess api.Session
	mustJSON(t, body, &sess)
	path := fmt.Sprintf("/s/%d/", sess.ID)

	page := a.Login(t, owner.Email)
	st, loc, _ := get(t, page, a.URL+path+"tree?x=1", "")
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, a.SessionURL+path+"_auth?") {
		t.Fatalf("replica A's dashboard %s: %d to %q, want 303 to the handoff", path, st, loc)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	// The load balancer sends the redirect to replica B.
	onB := b.SessionURL + u.RequestURI()
	bare := noFollow(nil)
	st, next, setCookie := get(t, bare, onB, "")
	if st != http.StatusSeeOther || next != path+"tree?x=1" || !strings.Contains(setCookie, "gpusched_sorigin=") {
		t.Fatalf("replica B redeems A's handoff: %d to %q (cookie %q), want 303 to %stree?x=1 with the cookie", st, next, setCookie, path)
	}
	for name, again := range map[string]string{"on B": onB, "on A": a.SessionURL + u.RequestURI()} {
		if st, _, sc := get(t, bare, again, ""); st != http.StatusNotFound || sc != "" {
			t.Errorf("the spent handoff again %s: %d (cookie %q), want 404 and no cookie", name, st, sc)
		}
	}
	cookie, _, _ := strings.Cut(setCookie, ";")
	st, to, _ := get(t, bare, a.SessionURL+path, cookie)
	if st == http.StatusSeeOther && strings.HasPrefix(to, a.URL) {
		t.Errorf("replica A's session origin does not take the cookie B set: %d to %q", st, to)
	}
	var left int
	if err := a.DB.Bun.NewRaw(`SELECT count(*) FROM session_handoffs WHERE job_id = ?`, sess.ID).Scan(t.Context(), &left); err != nil || left != 0 {
		t.Errorf("%d handoffs of the session left after it was spent (%v)", left, err)
	}
}
