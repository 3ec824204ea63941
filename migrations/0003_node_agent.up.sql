-- 0003: the node agent. Jobs run by the agent are started and stopped through
-- a per-node command queue the agent long-polls (idempotent by command id);
-- their output is shipped in chunks and capped per run; a lease may be
-- pinned to one node (the local /acquire of `gpusched node`); allocated GPUs
-- that stay idle are flagged.

CREATE TABLE node_commands (
    id           bigserial PRIMARY KEY,
    node_id      bigint NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    job_id       bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    kind         text NOT NULL CHECK (kind IN ('start', 'stop')),
    payload      jsonb NOT NULL DEFAULT '{}',
    state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'canceled')),
    result       jsonb,
    created_at   timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz,
    done_at      timestamptz
);
-- At most one start of a job waits or runs at a time: a retried dispatch cannot start it twice.
CREATE UNIQUE INDEX node_commands_one_live_start ON node_commands (job_id) WHERE kind = 'start' AND state = 'pending';
CREATE INDEX node_commands_pending_idx ON node_commands (node_id, id) WHERE state = 'pending';
CREATE INDEX node_commands_job_idx ON node_commands (job_id, id);

-- job_logs holds a run's output in chunks keyed by byte offset (a retried
-- chunk changes nothing); only the newest chunks up to a cap are kept.
CREATE TABLE job_logs (
    command_id bigint NOT NULL REFERENCES node_commands (id) ON DELETE CASCADE,
    job_id     bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    "offset"   bigint NOT NULL CHECK ("offset" >= 0),
    data       bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (command_id, "offset")
);
CREATE INDEX job_logs_job_idx ON job_logs (job_id, command_id);

-- A lease made on a node for a local process is placed on that node only.
ALTER TABLE jobs ADD COLUMN node_id bigint REFERENCES nodes (id) ON DELETE SET NULL;

-- An allocated GPU with near-zero utilization since idle_since is flagged idle.
ALTER TABLE gpus ADD COLUMN idle_since timestamptz;
