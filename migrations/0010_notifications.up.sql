-- Notifications: a user's own delivery channels (webhook, Slack, email), their
-- preferences (event × channel kind, quiet hours), and one row per delivery
-- (recipient × channel) of an event, deduplicated by (event, subject,
-- channel). In-app notifications are rows of the same table, read by the bell.
CREATE TABLE notification_channels (
    id              bigserial PRIMARY KEY,
    -- NULL: a team or server-wide channel set by an admin.
    user_id         bigint REFERENCES users (id) ON DELETE CASCADE,
    type            text NOT NULL CHECK (type IN ('webhook', 'slack', 'email')),
    target          text NOT NULL CHECK (target <> ''),
    -- The HMAC key of a webhook channel (needed in clear to sign).
    secret          text NOT NULL DEFAULT '',
    -- Deliveries per minute before later ones wait.
    rate_per_minute integer NOT NULL DEFAULT 30 CHECK (rate_per_minute > 0),
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notification_channels_user_idx ON notification_channels (user_id);

CREATE TABLE notification_preferences (
    user_id     bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    -- {"job.finished": ["in_app", "webhook"], ...}; events left out take the defaults.
    events      jsonb NOT NULL DEFAULT '{}',
    -- Quiet hours in minutes of the UTC day; deliveries other than in-app wait.
    quiet_start smallint CHECK (quiet_start BETWEEN 0 AND 1439),
    quiet_end   smallint CHECK (quiet_end BETWEEN 0 AND 1439),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE notifications (
    id           bigserial PRIMARY KEY,
    user_id      bigint REFERENCES users (id) ON DELETE CASCADE,
    channel_id   bigint REFERENCES notification_channels (id) ON DELETE CASCADE,
    channel_type text NOT NULL CHECK (channel_type IN ('in_app', 'webhook', 'slack', 'email')),
    event        text NOT NULL,
    subject      text NOT NULL,
    payload      jsonb NOT NULL,
    state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts     integer NOT NULL DEFAULT 0,
    last_error   text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    delivered_at timestamptz,
    read_at      timestamptz,
    dedup_key    text NOT NULL,
    CONSTRAINT notifications_dedup_key UNIQUE (dedup_key)
);
CREATE INDEX notifications_in_app_idx ON notifications (user_id, id DESC) WHERE channel_type = 'in_app';
CREATE INDEX notifications_unread_idx ON notifications (user_id) WHERE channel_type = 'in_app' AND read_at IS NULL;
CREATE INDEX notifications_dead_idx ON notifications (id DESC) WHERE state = 'dead';
CREATE INDEX notifications_channel_sent_idx ON notifications (channel_id, delivered_at) WHERE delivered_at IS NOT NULL;
CREATE INDEX notifications_pending_idx ON notifications (created_at) WHERE state = 'pending' AND channel_type <> 'in_app';

-- Idle GPUs given back by policy: per job, since when all its GPUs sit idle,
-- when its owner was warned, and whether it was reclaimed.
CREATE TABLE job_idle (
    job_id       bigint PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    idle_ok      boolean NOT NULL DEFAULT false,
    idle_since   timestamptz,
    warned_at    timestamptz,
    reclaimed_at timestamptz,
    gpu_count    integer NOT NULL DEFAULT 0
);
