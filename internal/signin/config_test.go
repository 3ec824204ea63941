package signin

import "testing"

func TestPolicy(t *testing.T) {
	t.Parallel()
	p := Policy{AllowedDomains: []string{"example.com"}, AllowedEmails: []string{"guest@else.org"}, Admins: []string{"root@ops.net"}}
	tests := map[string]struct {
		email        string
		allows, isAd bool
	}{
		"an allowed domain":          {"ana@example.com", true, false},
		"case does not matter":       {"Ana@Example.COM", true, false},
		"a subdomain is not allowed": {"ana@sub.example.com", false, false},
		"a look-alike domain":        {"ana@example.com.evil.org", false, false},
		"an allowed address":         {"guest@else.org", true, false},
		"another address there":      {"host@else.org", false, false},
		"an admin":                   {"root@ops.net", true, true},
		"no domain":                  {"root", false, false},
	}
	for name, tc := range tests {
		if got := p.Allows(tc.email); got != tc.allows {
			t.Errorf("%s: Allows(%q) = %t", name, tc.email, got)
		}
		if got := p.IsAdmin(tc.email); got != tc.isAd {
			t.Errorf("%s: IsAdmin(%q) = %t", name, tc.email, got)
		}
	}
	if (Policy{}).Allows("ana@example.com") {
		t.Error("an empty policy lets strangers in")
	}
}
