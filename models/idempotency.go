package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ErrIdempotencyMismatch is returned when an Idempotency-Key is reused with
// a different request.
var ErrIdempotencyMismatch = errors.New("idempotency key reused with a different request")

// IdempotentResponse is a stored answer to a request sent with a key.
type IdempotentResponse struct {
	Status int
	Body   json.RawMessage
}

// ClaimIdempotencyKey claims (user, key) for a request whose hash is given,
// inside the caller's transaction. It returns the stored answer when the
// same request was already answered (replay it, change nothing), nil when
// the claim is new (go ahead, then SaveIdempotentResponse in the same
// transaction), or ErrIdempotencyMismatch. A concurrent twin waits on the
// row until the first commits, then gets its answer.
func ClaimIdempotencyKey(ctx context.Context, db bun.IDB, userID int64, key, route string, hash []byte) (*IdempotentResponse, error) {
	res, err := db.ExecContext(ctx, `INSERT INTO idempotency_keys (user_id, key, route, request_hash, status, response)
		VALUES (?, ?, ?, ?, 0, '') ON CONFLICT DO NOTHING`, userID, key, route, hash)
	if err != nil {
		return nil, fmt.Errorf("models: claim idempotency key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil, nil
	}
	var row struct {
		Route  string          `bun:"route"`
		Hash   []byte          `bun:"request_hash"`
		Status int             `bun:"status"`
		Body   json.RawMessage `bun:"response"`
	}
	if err := db.NewRaw(`SELECT route, request_hash, status, response FROM idempotency_keys WHERE user_id = ? AND key = ?`,
		userID, key).Scan(ctx, &row.Route, &row.Hash, &row.Status, &row.Body); err != nil {
		return nil, fmt.Errorf("models: read idempotency key: %w", err)
	}
	if row.Route != route || string(row.Hash) != string(hash) {
		return nil, ErrIdempotencyMismatch
	}
	return &IdempotentResponse{Status: row.Status, Body: row.Body}, nil
}

// SaveIdempotentResponse stores the answer for a claimed key.
func SaveIdempotentResponse(ctx context.Context, db bun.IDB, userID int64, key string, status int, body any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("models: encode idempotent response: %w", err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE idempotency_keys SET status = ?, response = ? WHERE user_id = ? AND key = ?`,
		status, string(raw), userID, key); err != nil {
		return fmt.Errorf("models: save idempotent response: %w", err)
	}
	return nil
}

// PruneIdempotencyKeys forgets at most limit keys created before before,
// oldest first, in one statement, and returns how many it forgot.
func PruneIdempotencyKeys(ctx context.Context, db bun.IDB, before time.Time, limit int) (int64, error) {
	return countDeleted(ctx, db, "idempotency_keys", `
WITH gone AS (
    DELETE FROM idempotency_keys WHERE (user_id, key) IN (
        SELECT user_id, key FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?)
    RETURNING 1
)
SELECT count(*) FROM gone`, before, limit)
}
