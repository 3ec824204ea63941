package web_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/netguard"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// A member's webhook or Slack channel may not name loopback, private,
// shared, unique-local, NAT64 or metadata addresses, however written
// (zoned, mapped, trailing-dot localhost, numeric short forms), through
// the API or the settings form; the admin's allowed network and public
// hosts are accepted.
func TestNotifyChannelRefusesNonPublicTargets(t *testing.T) {
	t.Parallel()
	s := testserver.NewWith(t, testserver.Options{NotifyTargets: &netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")}}})
	tok, _ := s.UserToken(t, models.RoleMember)
	browser := s.Login(t, "ana@example.com")
	refused := []string{
		"https://[::1%25lo]:8443/", "https://[::ffff:127.0.0.1%25lo]/", "https://[fe80::1%25eth0]/",
		"https://127.0.0.1/", "https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://localhost/", "https://localhost./",
		"https://hooks.localhost./", "https://127.1/", "https://2130706433/", "https://0.1.2.3/", "https://0.0.0.0/",
		"https://10.0.0.5/", "https://172.16.0.1/", "https://192.168.1.1/", "https://100.64.0.1/", "https://[fc00::1]/",
		"https://[fd00:ec2::254]/", "https://[64:ff9b::a00:5]/", "https://169.254.169.254/latest/meta-data/",
		"https://user:pw@hooks.example.com/", "http://hooks.example.com/",
	}
	for _, typ := range []string{"webhook", "slack"} {
		for _, u := range refused {
			st, b := s.Do(t, "POST", "/api/v1/notifications/channels", tok, fmt.Sprintf(`{"type":%q,"url":%q}`, typ, u))
			if msg, _ := testserver.APIError(t, b); st != http.StatusBadRequest || !strings.HasPrefix(msg, "url:") {
				t.Errorf("API %s %s: %d %s, want a 400 naming url", typ, u, st, b)
			}
			if st, html, _ := postForm(t, s, browser, "/settings/notifications/channels", url.Values{"type": {typ}, "target": {u}}); st != http.StatusBadRequest {
				t.Errorf("form %s %s: %d, want 400\n%.300s", typ, u, st, html)
			}
		}
	}
	var n int
	if err := s.DB.Bun.NewRaw("SELECT count(*) FROM notification_channels").Scan(t.Context(), &n); err != nil || n != 0 {
		t.Fatalf("%d channels written (%v), want none", n, err)
	}
	for _, u := range []string{"https://hooks.example.com/services/T/B/x", "https://10.20.0.5/hook", "https://hooks.example.com./x"} {
		if st, b := s.Do(t, "POST", "/api/v1/notifications/channels", tok, fmt.Sprintf(`{"type":"webhook","url":%q}`, u)); st != http.StatusCreated {
			t.Errorf("%s: %d %s, want 201", u, st, b)
		}
	}
}
