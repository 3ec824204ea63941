-- Session handoffs carry a dashboard sign-in to the session origin
-- (GPUSCHED_SESSION_ORIGIN): the dashboard mints one on /s/{id}/ and the
-- session origin spends it on /s/{id}/_auth, maybe on another replica, so
-- they live here rather than in one replica's memory. The token is stored
-- hashed (SHA-256); a handoff is good once (redeeming deletes its row),
-- for its session, until expires_at (a minute); expired rows are deleted
-- by every replica's hourly prune.
CREATE TABLE session_handoffs (
    token_hash         bytea PRIMARY KEY CHECK (length(token_hash) = 32),
    job_id             bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    user_id            bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    browser_session_id bigint NOT NULL,
    created_at         timestamptz NOT NULL,
    expires_at         timestamptz NOT NULL
);
CREATE INDEX session_handoffs_expires ON session_handoffs (expires_at);
