-- 0006: Ray dispatch. A ray_runs row is one hand-over of a job to the Ray
-- cluster (one Ray submission; a requeued job gets a new attempt). Its
-- final output is kept here, capped, so it outlives the Ray head. The one
-- ray_cluster row says whether the cluster answers.

CREATE TABLE ray_runs (
    id                bigserial PRIMARY KEY,
    job_id            bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    attempt           int NOT NULL,
    submission_id     text NOT NULL UNIQUE,
    state             text NOT NULL DEFAULT 'submitting' CHECK (state IN ('submitting', 'submitted', 'done', 'lost')),
    ray_status        text NOT NULL DEFAULT '',
    message           text NOT NULL DEFAULT '',
    stop_state        text NOT NULL DEFAULT '',
    stop_reason       text NOT NULL DEFAULT '',
    stop_requested_at timestamptz,
    logs              bytea NOT NULL DEFAULT '',
    logs_offset       bigint NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    UNIQUE (job_id, attempt)
);
CREATE INDEX ray_runs_live_idx ON ray_runs (job_id) WHERE state IN ('submitting', 'submitted');

CREATE TABLE ray_cluster (
    id          int PRIMARY KEY CHECK (id = 1),
    address     text NOT NULL,
    connected   boolean NOT NULL DEFAULT false,
    ray_version text NOT NULL DEFAULT '',
    last_error  text NOT NULL DEFAULT '',
    down_since  timestamptz,
    checked_at  timestamptz
);
