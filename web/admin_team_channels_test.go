package web_test

import (
	"context"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/netguard"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

var newSecret = regexp.MustCompile(`data-testid="new-secret">\s*<span>[^<]*</span>\s*<code>([^<]+)</code>`)

// An admin sets the team's channels on Admin → Notifications: add a
// webhook, test it, see team events reach it, remove it. The channel from
// GPUSCHED_SLACK_WEBHOOK_URL is the fallback: used only while none is set
// here, and not removable on the page.
func TestAdminTeamChannels(t *testing.T) {
	t.Parallel()
	s, admin, _ := adminServer(t)
	registerGPUs(t, s, "gpu-a", 1)
	ctx := t.Context()
	if err := models.EnsureTeamChannel(ctx, s.DB.Bun, s.Handlers.Secrets, models.KindSlack, "https://hooks.slack.com/services/T0/B0/envsecret"); err != nil {
		t.Fatal(err)
	}
	team := func() []models.TeamChannel {
		t.Helper()
		all, err := models.TeamChannels(ctx, s.DB.Bun)
		if err != nil {
			t.Fatal(err)
		}
		return all
	}
	env := team()[0]
	if !env.FromEnv || !env.InUse {
		t.Fatalf("the environment's channel alone: %+v, want from the environment and in use", env)
	}
	if _, page := fetchPage(t, s, admin, "/admin/notifications"); !strings.Contains(page, `data-testid="team-channel-form"`) || strings.Contains(page, "envsecret") {
		t.Fatal("the page has no form to add a team channel, or shows the Slack secret")
	}

	recv := newWebhookReceiver(t, func(int32) int { return 200 })
	st, body := postAdminForm(t, s, admin, "/admin/notifications/channels", url.Values{"type": {"webhook"}, "url": {recv.URL}})
	m := newSecret.FindStringSubmatch(body)
	if st != 200 || m == nil {
		t.Fatalf("add a webhook team channel: %d\n%s", st, humanText(t, body))
	}
	recv.secret.Store(m[1])
	all := team()
	if len(all) != 2 || all[1].FromEnv || !all[1].InUse || all[0].InUse {
		t.Fatalf("after adding: %+v; want the admin's in use and the environment's not", all)
	}
	hook := all[1].ID
	if _, page := fetchPage(t, s, admin, "/admin/notifications"); !strings.Contains(humanText(t, page), "no: a channel set here takes its place") {
		t.Error("the page does not say the environment's channel stands aside")
	}

	if st, _ := postAdminForm(t, s, admin, "/admin/notifications/channels/"+itoa(hook)+"/test", url.Values{}); st != 200 {
		t.Fatalf("send test: %d", st)
	}
	if got := recv.next(t, models.EventTest, 15*time.Second); !got.SignatureOK {
		t.Error("the test message is not signed with the secret shown")
	}
	err := s.DB.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		return models.EmitNodeEvent(ctx, tx, models.EventNodeDown, "gpu-a", time.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := recv.next(t, models.EventNodeDown, 15*time.Second); got.Payload.Node == nil || got.Payload.Node.Name != "gpu-a" {
		t.Errorf("node.down to the team webhook: %+v", got.Payload)
	}
	var toEnv int
	if err := s.DB.Bun.NewRaw("SELECT count(*) FROM notifications WHERE channel_id = ?", env.ID).Scan(ctx, &toEnv); err != nil || toEnv != 0 {
		t.Errorf("%d notifications went to the environment's channel (%v) while an admin's was set", toEnv, err)
	}

	if st, body := postAdminForm(t, s, admin, "/admin/notifications/channels/"+itoa(env.ID)+"/delete", url.Values{}); st != 409 ||
		!strings.Contains(body, "unset GPUSCHED_SLACK_WEBHOOK_URL") {
		t.Errorf("remove the environment's channel on the page: %d", st)
	}
	if st, _ := postAdminForm(t, s, admin, "/admin/notifications/channels/"+itoa(hook)+"/delete", url.Values{}); st != 200 {
		t.Fatalf("remove: %d", st)
	}
	if all := team(); len(all) != 1 || !all[0].FromEnv || !all[0].InUse {
		t.Errorf("after removing: %+v; want the environment's back in use", all)
	}
	for _, a := range []string{"notify.team_channel.create", "notify.team_channel.delete"} {
		if auditActions(t, s, a) != 1 {
			t.Errorf("no audit entry %s", a)
		}
	}
	// A restart with the same environment keeps the admins' channels.
	if _, body := postAdminForm(t, s, admin, "/admin/notifications/channels", url.Values{"type": {"slack"}, "url": {"https://hooks.slack.com/services/T1/B1/mine"}}); !strings.Contains(body, "Team channel added") {
		t.Fatal("add a Slack team channel")
	}
	if err := models.EnsureTeamChannel(ctx, s.DB.Bun, s.Handlers.Secrets, models.KindSlack, ""); err != nil {
		t.Fatal(err)
	}
	if all := team(); len(all) != 1 || all[0].FromEnv || !all[0].InUse {
		t.Errorf("after a restart without the variable: %+v; want the admin's Slack channel alone", all)
	}
}

// Team webhooks go through the target checks members' do: with the
// server's default policy a loopback or private URL is refused with a
// sentence that says why; a network the admin allow-listed is accepted.
func TestAdminTeamChannelTargets(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		policy netguard.Policy
		url    string
		status int
		says   string
	}{
		"loopback":                {netguard.Policy{}, "https://127.0.0.1:8443/hook", 400, "must name a public host"},
		"private":                 {netguard.Policy{}, "https://10.1.2.3/hook", 400, "must name a public host"},
		"zoned loopback":          {netguard.Policy{}, "https://[::1%25lo]:8443/", 400, "The URL"},
		"plain http":              {netguard.Policy{}, "http://hooks.example.com/x", 400, "must use https"},
		"an allow-listed network": {netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}, "https://10.1.2.3/hook", 200, "Team channel added"},
	} {
		policy := tc.policy
		s := testserver.NewWith(t, testserver.Options{NotifyTargets: &policy})
		admin := s.Login(t, "root@example.com")
		if _, err := s.DB.Bun.NewRaw("UPDATE users SET role = 'admin' WHERE email = 'root@example.com'").Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
		st, body := postAdminForm(t, s, admin, "/admin/notifications/channels", url.Values{"type": {"webhook"}, "url": {tc.url}})
		if st != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d, want %d saying %q", name, st, tc.status, tc.says)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
