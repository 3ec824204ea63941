package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func TestBearerAuth(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	ctx := context.Background()
	good, _ := s.UserToken(t, models.RoleMember)
	revoked, _ := s.UserToken(t, models.RoleMember)
	if _, err := models.RevokeToken(ctx, s.DB.Bun, revoked, nil, testNow()); err != nil {
		t.Fatal(err)
	}
	nodeTok, _ := s.NodeToken(t, "gpu-a")

	tests := map[string]struct {
		method, path, token string
		header              string // raw Authorization header, when set
		want                int
		code                string
	}{
		"personal token on a user route":   {"GET", "/api/v1/me", good, "", 200, ""},
		"no token":                         {"GET", "/api/v1/me", "", "", 401, "unauthorized"},
		"wrong token":                      {"GET", "/api/v1/me", good[:len(good)-2] + "zz", "", 401, "unauthorized"},
		"garbage token":                    {"GET", "/api/v1/me", "not-a-token", "", 401, "unauthorized"},
		"revoked token":                    {"GET", "/api/v1/me", revoked, "", 401, "unauthorized"},
		"basic scheme":                     {"GET", "/api/v1/me", "", "Basic " + good, 401, "unauthorized"},
		"node token on a user route":       {"GET", "/api/v1/cluster/gpu-status", nodeTok, "", 403, "node_token"},
		"personal token on a node route":   {"POST", "/api/v1/nodes/register", good, "", 403, "not_node_token"},
		"node token on its route, no body": {"POST", "/api/v1/nodes/register", nodeTok, "", 400, "invalid_json"},
		"unknown api route":                {"GET", "/api/v1/nope", good, "", 404, "not_found"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, s.URL+tc.path, nil)
			switch {
			case tc.header != "":
				req.Header.Set("Authorization", tc.header)
			case tc.token != "":
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := s.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" && ct != "application/json; charset=UTF-8" {
				t.Fatalf("content type %q, want JSON", ct)
			}
			if tc.code != "" {
				body := readAll(t, resp)
				if _, code := testserver.APIError(t, body); code != tc.code {
					t.Fatalf("code %q, want %q (%s)", code, tc.code, body)
				}
			}
		})
	}
}

func TestMeShowsTheTokensUser(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, u := s.UserToken(t, models.RoleAdmin)
	status, body := s.Do(t, "GET", "/api/v1/me", tok, "")
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var me struct {
		User  models.User     `json:"user"`
		Token models.APIToken `json:"token"`
	}
	mustJSON(t, body, &me)
	if me.User.ID != u.ID || me.User.Role != models.RoleAdmin || me.Token.Prefix == "" {
		t.Fatalf("me = %+v", me)
	}
	if contains(body, `"hash"`) {
		t.Fatalf("the token's hash is exposed: %s", body)
	}
}

// Tokens are cached after their first use; revoking one reaches every
// cache through NOTIFY, so it stops working at once, not at the cache's TTL.
func TestRevocationReachesTheTokenCache(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	tok, _ := s.UserToken(t, models.RoleMember)
	if status, _ := s.Do(t, "GET", "/api/v1/me", tok, ""); status != 200 {
		t.Fatalf("first use: %d", status)
	}
	if _, err := models.RevokeToken(context.Background(), s.DB.Bun, tok, nil, testNow()); err != nil {
		t.Fatal(err)
	}
	var status int
	if !eventually(5*time.Second, func() bool { status, _ = s.Do(t, "GET", "/api/v1/me", tok, ""); return status == 401 }) {
		t.Fatalf("a revoked token still answered %d after 5s", status)
	}
}
