package web

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

// The client address believes X-Forwarded-For only from trusted proxies.
func TestClientIP(t *testing.T) {
	t.Parallel()
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	for name, tc := range map[string]struct {
		trusted []netip.Prefix
		peer    string
		xff     string
		want    string
	}{
		"no proxies, header ignored":      {nil, "203.0.113.9:4000", "198.51.100.7", "203.0.113.9"},
		"no proxies, loopback too":        {nil, "127.0.0.1:4000", "198.51.100.7", "127.0.0.1"},
		"trusted proxy names the client":  {proxies, "10.1.2.3:4000", "198.51.100.7", "198.51.100.7"},
		"nearest untrusted hop wins":      {proxies, "10.1.2.3:4000", "198.51.100.7, 203.0.113.5, 10.9.9.9", "203.0.113.5"},
		"untrusted peer's header ignored": {proxies, "203.0.113.9:4000", "198.51.100.7", "203.0.113.9"},
		"trusted proxy without a header":  {proxies, "10.1.2.3:4000", "", "10.1.2.3"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.peer
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			if got := ipExtractor(tc.trusted)(r); got != tc.want {
				t.Errorf("client of %s with X-Forwarded-For %q = %s, want %s", tc.peer, tc.xff, got, tc.want)
			}
		})
	}
}
