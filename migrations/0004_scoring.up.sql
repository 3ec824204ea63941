-- 0004: the scoring service's learned state (spec/scoring-service.md).
-- Observations are an append-only log; a River job folds the pending ones,
-- in id order under one lock, into sufficient statistics per key, so every
-- replica reads the same model. Runtimes are modelled in log space
-- (internal/scoring): the statistics are of ln(runtime seconds).

CREATE TABLE scoring_observations (
    id                  bigserial PRIMARY KEY,
    job_type            text NOT NULL CHECK (length(job_type) BETWEEN 1 AND 200),
    gpu_type            text NOT NULL CHECK (length(gpu_type) BETWEEN 1 AND 200),
    runtime_s           double precision NOT NULL CHECK (runtime_s > 0 AND runtime_s < 'Infinity' AND runtime_s <> 'NaN'),
    colocated_job_types text[] NOT NULL DEFAULT '{}',
    -- job_id is set when a finished job observed itself: at most once per job.
    job_id              bigint UNIQUE REFERENCES jobs (id) ON DELETE SET NULL,
    source              text NOT NULL CHECK (source IN ('api', 'job')),
    created_at          timestamptz NOT NULL,
    applied_at          timestamptz
);
CREATE INDEX scoring_observations_pending_idx ON scoring_observations (id) WHERE applied_at IS NULL;

-- scoring_runtime_stats: count, mean and sum of squared deviations (Welford)
-- of ln(runtime) per (job type, GPU type).
CREATE TABLE scoring_runtime_stats (
    job_type   text NOT NULL,
    gpu_type   text NOT NULL,
    n          bigint NOT NULL CHECK (n > 0),
    mean_log   double precision NOT NULL,
    m2_log     double precision NOT NULL CHECK (m2_log >= 0),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (job_type, gpu_type)
);

-- scoring_interference_stats: the slowdown (runtime / learned mean - 1) of
-- job_type when it ran beside other_job_type on one node.
CREATE TABLE scoring_interference_stats (
    job_type       text NOT NULL,
    other_job_type text NOT NULL,
    n              bigint NOT NULL CHECK (n > 0),
    mean           double precision NOT NULL,
    m2             double precision NOT NULL CHECK (m2 >= 0),
    updated_at     timestamptz NOT NULL,
    PRIMARY KEY (job_type, other_job_type)
);
