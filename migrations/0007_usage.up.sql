-- Usage history: GPU telemetry at heartbeat resolution for a short while,
-- rolled up to minutes and hours kept longer, and the queue's length and
-- wait sampled over time. Raw samples are appended in time order, so a BRIN
-- index on their time stays tiny whatever the cluster's size; roll-ups key on
-- (resolution, gpu, bucket) for idempotent upserts and index (resolution,
-- bucket) for reads by time.

CREATE TABLE gpu_samples (
    at              timestamptz NOT NULL,
    gpu_id          bigint NOT NULL REFERENCES gpus (id) ON DELETE CASCADE,
    node_id         bigint NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    utilization_pct smallint NOT NULL CHECK (utilization_pct BETWEEN 0 AND 100),
    memory_used_mib bigint NOT NULL CHECK (memory_used_mib >= 0),
    temperature_c   smallint NOT NULL,
    power_w         integer NOT NULL
);
CREATE INDEX gpu_samples_at_brin ON gpu_samples USING brin (at);

-- gpu_rollups holds one row per GPU and bucket at each resolution (60 s, 3600 s).
CREATE TABLE gpu_rollups (
    resolution_s    integer NOT NULL CHECK (resolution_s IN (60, 3600)),
    bucket          timestamptz NOT NULL,
    gpu_id          bigint NOT NULL REFERENCES gpus (id) ON DELETE CASCADE,
    node_id         bigint NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    samples         integer NOT NULL CHECK (samples > 0),
    utilization_avg real NOT NULL,
    utilization_max smallint NOT NULL,
    memory_used_avg bigint NOT NULL,
    temperature_max smallint NOT NULL,
    power_avg       real NOT NULL,
    PRIMARY KEY (resolution_s, gpu_id, bucket)
);
-- Reads by time across GPUs, the roll-up's "newest bucket" and retention's deletes.
CREATE INDEX gpu_rollups_time_idx ON gpu_rollups (resolution_s, bucket);

-- queue_samples: the queue's length and wait, sampled by the roll-up job.
CREATE TABLE queue_samples (
    at          timestamptz PRIMARY KEY,
    queued      integer NOT NULL CHECK (queued >= 0),
    queued_gpus integer NOT NULL CHECK (queued_gpus >= 0),
    running     integer NOT NULL CHECK (running >= 0),
    max_wait_s  double precision NOT NULL CHECK (max_wait_s >= 0),
    avg_wait_s  double precision NOT NULL CHECK (avg_wait_s >= 0)
);
