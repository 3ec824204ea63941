-- sessions are browser sign-ins kept server-side: the cookie carries only a
-- random opaque id, stored here hashed (SHA-256), so signing out, "sign out
-- everywhere", an admin, or disabling the user ends a session at once.
CREATE TABLE sessions (
    id           bigserial PRIMARY KEY,
    token_hash   bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    via          text NOT NULL DEFAULT '',
    ip           text NOT NULL DEFAULT '',
    user_agent   text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    ended_at     timestamptz
);
CREATE INDEX sessions_user_live ON sessions (user_id) WHERE ended_at IS NULL;
CREATE INDEX sessions_expires ON sessions (expires_at);
