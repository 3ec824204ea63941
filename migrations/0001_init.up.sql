-- 0001: the first schema: people, tokens, nodes and GPUs, jobs and their events,
-- allocations, bookings, the audit log and settings.

CREATE TABLE teams (
    id                bigserial PRIMARY KEY,
    name              text NOT NULL CHECK (name <> ''),
    fair_share_weight double precision NOT NULL DEFAULT 1 CHECK (fair_share_weight > 0),
    gpu_cap           integer CHECK (gpu_cap >= 0),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX teams_name_key ON teams (lower(name));

CREATE TABLE users (
    id                bigserial PRIMARY KEY,
    email             text NOT NULL CHECK (email LIKE '%_@_%'),
    name              text NOT NULL DEFAULT '',
    role              text NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member')),
    team_id           bigint REFERENCES teams (id) ON DELETE SET NULL,
    unix_user         text,
    fair_share_weight double precision NOT NULL DEFAULT 1 CHECK (fair_share_weight > 0),
    gpu_cap           integer CHECK (gpu_cap >= 0),
    disabled_at       timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- identities link a user to sign-in providers (OpenID Connect, GitHub, Google…).
CREATE TABLE identities (
    id             bigserial PRIMARY KEY,
    user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider       text NOT NULL,
    subject        text NOT NULL,
    email          text NOT NULL DEFAULT '',
    email_verified boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now(),
    last_login_at  timestamptz,
    UNIQUE (provider, subject)
);
CREATE INDEX identities_user_idx ON identities (user_id);

CREATE TABLE nodes (
    id                bigserial PRIMARY KEY,
    name              text NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$'),
    hostname          text NOT NULL DEFAULT '',
    status            text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'up', 'down')),
    drained           boolean NOT NULL DEFAULT false,
    agent_version     text NOT NULL DEFAULT '',
    labels            jsonb NOT NULL DEFAULT '{}',
    registered_at     timestamptz,
    last_heartbeat_at timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX nodes_name_key ON nodes (lower(name));

CREATE TABLE api_tokens (
    id           bigserial PRIMARY KEY,
    prefix       text NOT NULL UNIQUE,
    hash         bytea NOT NULL CHECK (length(hash) = 32),
    name         text NOT NULL DEFAULT '',
    user_id      bigint REFERENCES users (id) ON DELETE CASCADE,
    node_id      bigint REFERENCES nodes (id) ON DELETE CASCADE,
    scopes       text[] NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    expires_at   timestamptz,
    revoked_at   timestamptz,
    CHECK ((user_id IS NULL) <> (node_id IS NULL))
);
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id);
CREATE INDEX api_tokens_node_idx ON api_tokens (node_id);

CREATE TABLE gpus (
    id                bigserial PRIMARY KEY,
    node_id           bigint NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    idx               integer NOT NULL CHECK (idx >= 0),
    uuid              text NOT NULL CHECK (uuid <> ''),
    model             text NOT NULL,
    memory_mib        bigint NOT NULL CHECK (memory_mib >= 0),
    health            text NOT NULL DEFAULT 'ok' CHECK (health IN ('ok', 'degraded', 'failed')),
    health_reason     text NOT NULL DEFAULT '',
    nvlink_group      integer,
    drained           boolean NOT NULL DEFAULT false,
    present           boolean NOT NULL DEFAULT true,
    utilization_pct   integer NOT NULL DEFAULT 0 CHECK (utilization_pct BETWEEN 0 AND 100),
    memory_used_mib   bigint NOT NULL DEFAULT 0 CHECK (memory_used_mib >= 0),
    temperature_c     integer NOT NULL DEFAULT 0,
    power_w           integer NOT NULL DEFAULT 0,
    power_limit_w     integer NOT NULL DEFAULT 0,
    processes         jsonb NOT NULL DEFAULT '[]',
    telemetry_at      timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (uuid)
);
CREATE UNIQUE INDEX gpus_node_idx_key ON gpus (node_id, idx) WHERE present;

CREATE TABLE jobs (
    id                   bigserial PRIMARY KEY,
    name                 text NOT NULL DEFAULT '',
    owner_id             bigint NOT NULL REFERENCES users (id),
    team_id              bigint REFERENCES teams (id) ON DELETE SET NULL,
    state                text NOT NULL DEFAULT 'queued' CHECK (state IN (
                             'queued', 'scheduled', 'allocating', 'running',
                             'completed', 'failed', 'canceled', 'preempted')),
    command              text NOT NULL DEFAULT '',
    workdir              text NOT NULL DEFAULT '',
    env                  jsonb NOT NULL DEFAULT '{}',
    job_type             text NOT NULL DEFAULT '',
    gpu_count            integer NOT NULL CHECK (gpu_count BETWEEN 1 AND 4096),
    gpu_memory_mib       bigint CHECK (gpu_memory_mib > 0),
    gpu_model            text NOT NULL DEFAULT '',
    allow_multi_node     boolean NOT NULL DEFAULT false,
    priority             integer NOT NULL DEFAULT 2 CHECK (priority BETWEEN 1 AND 4),
    preemptible          boolean NOT NULL DEFAULT true,
    estimated_duration_s bigint CHECK (estimated_duration_s > 0),
    executor             text NOT NULL DEFAULT 'local' CHECK (executor IN ('local', 'ray', 'none')),
    retry_count          integer NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
    max_retries          integer NOT NULL DEFAULT 0 CHECK (max_retries >= 0),
    exit_code            integer,
    failure_reason       text NOT NULL DEFAULT '',
    submitted_at         timestamptz NOT NULL DEFAULT now(),
    scheduled_at         timestamptz,
    started_at           timestamptz,
    ended_at             timestamptz,
    updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_live_idx ON jobs (state, submitted_at)
    WHERE state IN ('queued', 'scheduled', 'allocating', 'running', 'preempted');
CREATE INDEX jobs_owner_idx ON jobs (owner_id, submitted_at DESC);

-- job_events records every state move (invariant 2): written in the move's transaction.
CREATE TABLE job_events (
    id            bigserial PRIMARY KEY,
    job_id        bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    from_state    text,
    to_state      text NOT NULL,
    reason        text NOT NULL DEFAULT '',
    actor_user_id bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_events_job_idx ON job_events (job_id, id);

CREATE TABLE allocations (
    id             bigserial PRIMARY KEY,
    job_id         bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    gpu_id         bigint NOT NULL REFERENCES gpus (id) ON DELETE CASCADE,
    user_id        bigint NOT NULL REFERENCES users (id),
    created_at     timestamptz NOT NULL DEFAULT now(),
    released_at    timestamptz,
    release_reason text NOT NULL DEFAULT '',
    CHECK (released_at IS NULL OR released_at >= created_at)
);
-- Invariant 1: a GPU is held by at most one live allocation, whatever replica wrote it.
CREATE UNIQUE INDEX allocations_one_live_per_gpu ON allocations (gpu_id) WHERE released_at IS NULL;
CREATE INDEX allocations_job_idx ON allocations (job_id);

-- bookings are calendar claims (kind 'booking') and agent pre-warm holds (kind 'hold').
CREATE TABLE bookings (
    id          bigserial PRIMARY KEY,
    user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind        text NOT NULL DEFAULT 'booking' CHECK (kind IN ('booking', 'hold')),
    gpu_count   integer NOT NULL CHECK (gpu_count >= 1),
    gpu_model   text NOT NULL DEFAULT '',
    node_id     bigint REFERENCES nodes (id) ON DELETE CASCADE,
    starts_at   timestamptz NOT NULL,
    ends_at     timestamptz NOT NULL,
    note        text NOT NULL DEFAULT '',
    source      text NOT NULL DEFAULT '',
    canceled_at timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CHECK (ends_at > starts_at)
);
CREATE INDEX bookings_live_idx ON bookings (ends_at) WHERE canceled_at IS NULL;

-- booking_gpus names the exact GPUs of a booking, when the user chose them.
CREATE TABLE booking_gpus (
    booking_id bigint NOT NULL REFERENCES bookings (id) ON DELETE CASCADE,
    gpu_id     bigint NOT NULL REFERENCES gpus (id) ON DELETE CASCADE,
    PRIMARY KEY (booking_id, gpu_id)
);

CREATE TABLE audit_log (
    id             bigserial PRIMARY KEY,
    actor_user_id  bigint REFERENCES users (id) ON DELETE SET NULL,
    actor_token_id bigint REFERENCES api_tokens (id) ON DELETE SET NULL,
    action         text NOT NULL,
    target_type    text NOT NULL DEFAULT '',
    target_id      text NOT NULL DEFAULT '',
    details        jsonb NOT NULL DEFAULT '{}',
    remote_addr    text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_created_idx ON audit_log (created_at DESC);

CREATE TABLE settings (
    key        text PRIMARY KEY,
    value      jsonb NOT NULL,
    updated_by bigint REFERENCES users (id) ON DELETE SET NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
