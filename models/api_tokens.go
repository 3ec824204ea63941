package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Token kinds, visible as the first letters of every token.
const (
	tokenTagUser = "gsu_"
	tokenTagNode = "gsn_"
)

// ErrBadToken is returned for a token that is malformed, unknown, revoked,
// expired or does not match its stored hash. Callers answer 401 and do not
// say which.
var ErrBadToken = errors.New("invalid or revoked token")

// APIToken is a personal or node API token. Only its SHA-256 hash is stored;
// the prefix (kind + 8 characters) is shown in lists and used to find it.
type APIToken struct {
	bun.BaseModel `bun:"table:api_tokens"`

	ID         int64      `bun:"id,pk,autoincrement" json:"id"`
	Prefix     string     `bun:"prefix,notnull" json:"prefix"`
	Hash       []byte     `bun:"hash,notnull" json:"-"`
	Name       string     `bun:"name,notnull" json:"name"`
	UserID     *int64     `bun:"user_id" json:"user_id,omitempty"`
	NodeID     *int64     `bun:"node_id" json:"node_id,omitempty"`
	Scopes     []string   `bun:"scopes,array" json:"scopes"`
	CreatedAt  time.Time  `bun:"created_at,notnull,default:now()" json:"created_at"`
	LastUsedAt *time.Time `bun:"last_used_at" json:"last_used_at,omitempty"`
	ExpiresAt  *time.Time `bun:"expires_at" json:"expires_at,omitempty"`
	RevokedAt  *time.Time `bun:"revoked_at" json:"revoked_at,omitempty"`

	// User and Node are the owner, loaded with the token by AuthenticateToken.
	User *User `bun:"rel:belongs-to,join:user_id=id" json:"-"`
	Node *Node `bun:"rel:belongs-to,join:node_id=id" json:"-"`
}

// IsNode reports whether the token belongs to a node agent.
func (t *APIToken) IsNode() bool { return t.NodeID != nil }

var tokenEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newToken returns a fresh token "gsu_<8 id chars>_<52 secret chars>": the id
// part (40 random bits) is the visible prefix, the secret part carries 256
// more random bits.
func newToken(tag string) (plain, prefix string, hash []byte, err error) {
	var id [5]byte
	var secret [32]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", "", nil, err
	}
	if _, err := rand.Read(secret[:]); err != nil {
		return "", "", nil, err
	}
	prefix = tag + tokenEncoding.EncodeToString(id[:])
	plain = prefix + "_" + tokenEncoding.EncodeToString(secret[:])
	sum := sha256.Sum256([]byte(plain))
	return plain, prefix, sum[:], nil
}

// TokenPrefix returns the visible prefix of a token string, or "" when it is
// not of our form.
func TokenPrefix(plain string) string {
	if !strings.HasPrefix(plain, tokenTagUser) && !strings.HasPrefix(plain, tokenTagNode) {
		return ""
	}
	if len(plain) != 4+8+1+52 || plain[12] != '_' {
		return ""
	}
	return plain[:12]
}

// CreateUserToken issues a personal token and returns its plain text, which is
// shown once and never stored.
func CreateUserToken(ctx context.Context, db bun.IDB, userID int64, name string, expiresAt *time.Time) (string, *APIToken, error) {
	return createToken(ctx, db, tokenTagUser, &APIToken{UserID: &userID, Name: name, ExpiresAt: expiresAt, Scopes: []string{}})
}

// CreateNodeToken issues a token for a node agent.
func CreateNodeToken(ctx context.Context, db bun.IDB, nodeID int64, name string) (string, *APIToken, error) {
	return createToken(ctx, db, tokenTagNode, &APIToken{NodeID: &nodeID, Name: name, Scopes: []string{"node"}})
}

func createToken(ctx context.Context, db bun.IDB, tag string, t *APIToken) (string, *APIToken, error) {
	for attempt := 0; ; attempt++ {
		plain, prefix, hash, err := newToken(tag)
		if err != nil {
			return "", nil, fmt.Errorf("models: create token: random: %w", err)
		}
		t.Prefix, t.Hash = prefix, hash
		_, err = db.NewInsert().Model(t).Returning("*").Exec(ctx)
		if err == nil {
			return plain, t, nil
		}
		// A prefix collision (1 in 2^40) is retried with fresh randomness.
		if !isUniqueViolation(err, "api_tokens_prefix_key") || attempt >= 3 {
			return "", nil, fmt.Errorf("models: create token: %w", err)
		}
	}
}

// AuthenticateToken finds the live token matching plain, with its owner (user
// or node) in the same query, and compares its hash in constant time. Any
// failure is ErrBadToken.
func AuthenticateToken(ctx context.Context, db bun.IDB, plain string, now time.Time) (*APIToken, error) {
	prefix := TokenPrefix(plain)
	if prefix == "" {
		return nil, ErrBadToken
	}
	t := new(APIToken)
	if err := db.NewSelect().Model(t).Relation("User").Relation("Node").Where("api_token.prefix = ?", prefix).Scan(ctx); err != nil {
		if errors.Is(err, errNoRows) {
			return nil, ErrBadToken
		}
		return nil, fmt.Errorf("models: look up token %s: %w", prefix, err)
	}
	sum := sha256.Sum256([]byte(plain))
	if subtle.ConstantTimeCompare(sum[:], t.Hash) != 1 {
		return nil, ErrBadToken
	}
	if t.RevokedAt != nil || (t.ExpiresAt != nil && !now.Before(*t.ExpiresAt)) {
		return nil, ErrBadToken
	}
	return t, nil
}

// TouchTokens records that tokens were used at now. The caller batches and
// throttles this so requests do not each cost a write.
func TouchTokens(ctx context.Context, db bun.IDB, ids []int64, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := db.NewUpdate().Model((*APIToken)(nil)).
		Set("last_used_at = ?", now).
		Where("id IN (?)", bun.In(ids)).
		Where("last_used_at IS NULL OR last_used_at < ?", now).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: touch %d tokens: %w", len(ids), err)
	}
	return nil
}

// TokenFilter selects tokens to list: by user, by node, or all when both are nil.
type TokenFilter struct {
	UserID         *int64
	NodeID         *int64
	IncludeRevoked bool
}

// ListTokens returns tokens, newest first.
func ListTokens(ctx context.Context, db bun.IDB, f TokenFilter) ([]APIToken, error) {
	var out []APIToken
	q := db.NewSelect().Model(&out).OrderExpr("id DESC")
	if f.UserID != nil {
		q = q.Where("user_id = ?", *f.UserID)
	}
	if f.NodeID != nil {
		q = q.Where("node_id = ?", *f.NodeID)
	}
	if !f.IncludeRevoked {
		q = q.Where("revoked_at IS NULL")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: list tokens: %w", err)
	}
	return out, nil
}

// RevokeToken revokes the token with the given visible prefix (or the full
// token); revoking twice is not an error. When ownerID is not nil the token
// must belong to that user.
func RevokeToken(ctx context.Context, db bun.IDB, prefixOrToken string, ownerID *int64, now time.Time) (*APIToken, error) {
	prefix := prefixOrToken
	if p := TokenPrefix(prefixOrToken); p != "" {
		prefix = p
	}
	t := new(APIToken)
	q := db.NewUpdate().Model(t).
		Set("revoked_at = coalesce(revoked_at, ?)", now).
		Where("prefix = ?", prefix).
		Returning("*")
	if ownerID != nil {
		q = q.Where("user_id = ?", *ownerID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, notFound(err, "revoke token "+prefix)
	}
	return t, Signal(ctx, db, ChannelTokens, "revoke:"+t.Prefix)
}
