package web_test

import (
	"testing"
)

// BenchmarkSSOSignIn is one whole sign-in of a known person through the
// OpenID Connect provider over loopback HTTP: our begin, the provider's
// login form, its code, our callback (code exchange, userinfo, session).
func BenchmarkSSOSignIn(b *testing.B) {
	s, ops := startSSO(b)
	for b.Loop() {
		resp, _ := ops["oidc"].SignIn(b, browserClient(), s.URL+"/auth/oidc", "ana@example.com")
		if resp.StatusCode != 200 || resp.Request.URL.Path != "/" {
			b.Fatalf("sign-in ended %d at %s", resp.StatusCode, resp.Request.URL.Path)
		}
	}
}

// BenchmarkAdminPages is the server time of the admin pages an admin opens
// most, one after another, through the full stack.
func BenchmarkAdminPages(b *testing.B) {
	s, _ := startSSO(b)
	registerGPUs(b, s, "gpu-a", 16)
	c := s.Login(b, "root@example.com")
	for b.Loop() {
		for _, p := range []string{"/admin/users", "/admin/nodes", "/admin/audit", "/admin/teams"} {
			resp, err := c.Get(s.URL + p)
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("%s: %d", p, resp.StatusCode)
			}
		}
	}
}
