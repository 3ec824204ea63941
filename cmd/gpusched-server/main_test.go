package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/cli"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// eventually polls cond until it holds and reports whether it did within limit.
func eventually(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); !cond(); <-time.After(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// gpusched runs the CLI with args and returns what it printed on stdout.
func gpusched(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

// Scripts rely on these forms: user create prints the id, token create
// prints only the token.
func TestUserAndTokenCommands(t *testing.T) {
	t.Setenv("DATABASE_URL", testdb.URL(t))
	if out, err := gpusched(t, "user", "create", "--email", "Ana@Example.com", "--name", "Ana", "--role", "admin"); err != nil || strings.TrimSpace(out) != "1" {
		t.Fatalf("user create: %q %v", out, err)
	}
	if _, err := gpusched(t, "user", "create", "--email", "ana@example.com"); err == nil {
		t.Fatal("a second user with the same email was created")
	}
	if _, err := gpusched(t, "user", "create", "--email", "bo@example.com", "--role", "root"); err == nil {
		t.Fatal("role root was accepted")
	}
	tok, err := gpusched(t, "token", "create", "--user", "ana@example.com", "--name", "ci")
	if err != nil || !regexp.MustCompile(`^gsu_[a-z2-7]{8}_[a-z2-7]{52}\n$`).MatchString(tok) {
		t.Fatalf("token create --user printed %q (%v), want only the token", tok, err)
	}
	nodeTok, err := gpusched(t, "token", "create", "--node", "gpu-node-1")
	if err != nil || !strings.HasPrefix(nodeTok, "gsn_") || strings.Count(nodeTok, "\n") != 1 {
		t.Fatalf("token create --node printed %q (%v)", nodeTok, err)
	}
	if _, err := gpusched(t, "token", "create", "--user", "nobody@example.com"); err == nil {
		t.Fatal("a token for an unknown user was created")
	}
	list, err := gpusched(t, "token", "list")
	if err != nil || !strings.Contains(list, "ana@example.com") || !strings.Contains(list, "gpu-node-1") || strings.Contains(list, strings.TrimSpace(tok)) {
		t.Fatalf("token list: %q %v", list, err)
	}
	prefix := tok[:12]
	if out, err := gpusched(t, "token", "revoke", prefix); err != nil || !strings.Contains(out, "revoked "+prefix) {
		t.Fatalf("revoke: %q %v", out, err)
	}
	list, _ = gpusched(t, "token", "list")
	if strings.Contains(list, prefix) {
		t.Fatalf("revoked token still listed without --all: %s", list)
	}
	if out, err := gpusched(t, "user", "set-role", "--email", "ana@example.com", "--role", "member"); err != nil {
		t.Fatalf("set-role: %q %v", out, err)
	}
	users, _ := gpusched(t, "user", "list")
	if !strings.Contains(users, "member") {
		t.Fatalf("user list after set-role: %s", users)
	}
}

// serve wires everything together: migrations, River and its UI, the
// listener, the simulated cluster, and a clean stop.
func TestServeDevEndToEnd(t *testing.T) {
	cfg, err := loadConfig(nil, envOf(map[string]string{
		"DATABASE_URL": testdb.URL(t), "GPUSCHED_DEV": "true", "GPUSCHED_LISTEN": "127.0.0.1:0",
		"GPUSCHED_DATA_DIR": t.TempDir(),
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), func(u string) { urls <- u })
	}()
	var base string
	select {
	case base = <-urls:
	case err := <-done:
		t.Fatalf("serve stopped early: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not start within 60s")
	}

	browser := login(t, base, "lead@example.com")

	// The simulated cluster registers itself: 16 GPUs on the page.
	if !eventually(20*time.Second, func() bool {
		return strings.Count(get(t, browser, base+"/fragments/cluster"), `data-testid="gpu-tile"`) == 16
	}) {
		t.Fatal("the simulated cluster did not show 16 GPUs within 20s")
	}
	// The first person to sign in is admin and may open the River UI.
	if code := status(t, browser, base+"/admin/river/"); code != 200 {
		t.Fatalf("River UI for an admin: %d", code)
	}
	// Later people are members, and may not.
	member := login(t, base, "bo@example.com")
	if code := status(t, member, base+"/admin/river/"); code != 403 {
		t.Fatalf("River UI for a member: %d, want 403", code)
	}
	var ready map[string]any
	if err := json.Unmarshal([]byte(get(t, browser, base+"/readyz")), &ready); err != nil || ready["status"] != "ready" {
		t.Fatalf("readyz: %v %v", ready, err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop within 30s of its context ending")
	}
}

// login signs email in through the dev sign-in form.
func login(t *testing.T, base, email string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	csrf := regexp.MustCompile(`name="csrf-token" content="([^"]+)"`).FindStringSubmatch(get(t, c, base+"/login"))
	if csrf == nil {
		t.Fatalf("no csrf token on the sign-in page")
	}
	resp, err := c.PostForm(base+"/auth/dev", url.Values{"email": {email}, "_csrf": {csrf[1]}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return c
}

func get(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func status(t *testing.T, c *http.Client, u string) int {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The `gpusched` client hands exactly this binary's server commands over,
// with the same one-line help.
func TestClientHandsOverEveryServerCommand(t *testing.T) {
	t.Parallel()
	client := map[string]bool{}
	for _, c := range cli.NewRoot(cli.Build{}).Commands() {
		client[c.Name()] = true
	}
	var got []cli.ServerCommand
	for _, c := range newRootCmd().Commands() {
		if !client[c.Name()] {
			got = append(got, cli.ServerCommand{Name: c.Name(), Short: c.Short, Hidden: c.Hidden})
		}
	}
	want := cli.ServerCommands()
	less := func(a, b cli.ServerCommand) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(got, less)
	slices.SortFunc(want, less)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cli.ServerCommands() differs from gpusched-server's own commands (-want +got):\n%s", diff)
	}
}
