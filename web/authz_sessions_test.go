package web_test

import (
	"context"
	"fmt"

	"github.com/gpuscheduler/gpuscheduler/models"
	"github.com/gpuscheduler/gpuscheduler/web"
)

// Sessions are server-side: routes that end sessions (sign-out, sign out
// everywhere) would end the fixture's own; these helpers give them sessions
// and users of their own, and relogin restores the callers afterwards.

// endsCallersSessions are the routes after which every caller signs in again.
var endsCallersSessions = map[string]bool{
	"POST /auth/logout":               true,
	"POST /settings/sessions/end-all": true,
}

// relogin gives member, other and admin fresh session cookies.
func (f *authzFixture) relogin() {
	f.t.Helper()
	for who, email := range map[int]string{member: "member@example.com", other: "other@example.com", admin: "admin@example.com"} {
		c := f.s.Login(f.t, email)
		for _, ck := range c.Jar.Cookies(mustURL(f.t, f.s.URL)) {
			if ck.Name == web.SessionCookie {
				f.sessions[who] = ck.Value
			}
		}
	}
}

// memberSession is a second session of the member's (another browser), to
// sign out from the settings page.
func (f *authzFixture) memberSession() (string, string) {
	f.t.Helper()
	_ = f.s.Login(f.t, "member@example.com")
	list, err := models.ListSessions(context.Background(), f.s.DB.Bun, f.ids[member], f.s.Handlers.Now())
	if err != nil || len(list) == 0 {
		f.t.Fatalf("member sessions: %v", err)
	}
	for _, s := range list {
		if s.ID > list[0].ID {
			list[0] = s
		}
	}
	return fmt.Sprintf("/settings/sessions/%d/end", list[0].ID), ""
}

// signedInUser is a fresh user with a session, for admins to sign out.
func signedInUser(prefix string) func(*authzFixture) (string, string) {
	return func(f *authzFixture) (string, string) {
		email := fmt.Sprintf("sessions-%d@example.com", f.seq.Add(1))
		_ = f.s.Login(f.t, email)
		u, err := models.GetUserByEmail(context.Background(), f.s.DB.Bun, email)
		if err != nil {
			f.t.Fatal(err)
		}
		return fmt.Sprintf(prefix, u.ID), ""
	}
}
