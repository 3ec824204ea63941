package models_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

func TestTokensAreStoredHashed(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	u := testdb.User(t, db, models.RoleMember)
	plain, tok, err := models.CreateUserToken(ctx, db.Bun, u.ID, "laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(plain, tok.Prefix+"_") {
		t.Fatalf("token %q does not start with its prefix %q", plain, tok.Prefix)
	}
	// Nothing in the row holds the secret part of the token.
	var row struct {
		Prefix string
		Hash   []byte
		Name   string
	}
	if err := db.Bun.NewRaw(`SELECT prefix, hash, name FROM api_tokens WHERE id = ?`, tok.ID).Scan(ctx, &row.Prefix, &row.Hash, &row.Name); err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimPrefix(plain, tok.Prefix+"_")
	if strings.Contains(row.Prefix+row.Name+string(row.Hash), secret) {
		t.Fatal("the stored row contains the token's secret")
	}
	want := sha256.Sum256([]byte(plain))
	if string(row.Hash) != string(want[:]) {
		t.Fatal("stored hash is not SHA-256 of the token")
	}
	if len(secret) < 52 {
		t.Fatalf("secret part has %d base32 characters, want ≥ 52 (256 bits)", len(secret))
	}
}

func TestAuthenticateToken(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	u := testdb.User(t, db, models.RoleMember)
	now := testdb.Now
	past := now.Add(-time.Hour)
	good, _, _ := models.CreateUserToken(ctx, db.Bun, u.ID, "good", nil)
	expired, _, _ := models.CreateUserToken(ctx, db.Bun, u.ID, "expired", &past)
	revoked, _, _ := models.CreateUserToken(ctx, db.Bun, u.ID, "revoked", nil)
	if _, err := models.RevokeToken(ctx, db.Bun, revoked, nil, now); err != nil {
		t.Fatal(err)
	}
	tampered := good[:len(good)-1] + map[bool]string{true: "b", false: "a"}[strings.HasSuffix(good, "a")]

	tests := map[string]struct {
		token string
		ok    bool
	}{
		"good":            {good, true},
		"expired":         {expired, false},
		"revoked":         {revoked, false},
		"tampered secret": {tampered, false},
		"unknown prefix":  {"gsu_aaaaaaaa_" + strings.Repeat("a", 52), false},
		"not our form":    {"hunter2", false},
		"empty":           {"", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			tok, err := models.AuthenticateToken(ctx, db.Bun, tc.token, now)
			if tc.ok {
				if err != nil || tok.UserID == nil || *tok.UserID != u.ID {
					t.Fatalf("got %+v, %v; want user %d's token", tok, err, u.ID)
				}
				return
			}
			if !errors.Is(err, models.ErrBadToken) {
				t.Fatalf("got %v, want ErrBadToken", err)
			}
		})
	}
}

func TestRevokeTokenOwnerOnly(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	ana, bo := testdb.User(t, db, models.RoleMember), testdb.User(t, db, models.RoleMember)
	plain, tok, _ := models.CreateUserToken(ctx, db.Bun, ana.ID, "", nil)
	if _, err := models.RevokeToken(ctx, db.Bun, tok.Prefix, &bo.ID, testdb.Now); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("bo revoking ana's token: got %v, want ErrNotFound", err)
	}
	if _, err := models.AuthenticateToken(ctx, db.Bun, plain, testdb.Now); err != nil {
		t.Fatalf("ana's token stopped working: %v", err)
	}
	if _, err := models.RevokeToken(ctx, db.Bun, tok.Prefix, &ana.ID, testdb.Now); err != nil {
		t.Fatalf("ana revoking her token: %v", err)
	}
}

func TestTouchTokensOnlyMovesForward(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	u := testdb.User(t, db, models.RoleMember)
	_, tok, _ := models.CreateUserToken(ctx, db.Bun, u.ID, "", nil)
	later := testdb.Now.Add(time.Hour)
	for _, at := range []time.Time{later, testdb.Now} {
		if err := models.TouchTokens(ctx, db.Bun, []int64{tok.ID}, at); err != nil {
			t.Fatal(err)
		}
	}
	toks, err := models.ListTokens(ctx, db.Bun, models.TokenFilter{UserID: &u.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(toks) != 1 || toks[0].LastUsedAt == nil || !toks[0].LastUsedAt.Equal(later) {
		t.Fatalf("last_used_at = %v, want %v", toks[0].LastUsedAt, later)
	}
}
