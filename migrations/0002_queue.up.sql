-- 0002: the queue. Executors are named for how a job runs: 'lease' (the
-- client runs the process itself: acquire/release), 'node' (the node agent
-- runs it), 'ray' (a Ray cluster). Every pending job carries the scheduler's
-- latest explanation; leases may expire; retried POSTs are idempotent.

ALTER TABLE jobs DROP CONSTRAINT jobs_executor_check;
UPDATE jobs SET executor = CASE executor WHEN 'local' THEN 'node' WHEN 'none' THEN 'lease' ELSE executor END;
ALTER TABLE jobs ALTER COLUMN executor SET DEFAULT 'node';
ALTER TABLE jobs ADD CONSTRAINT jobs_executor_check CHECK (executor IN ('lease', 'node', 'ray'));

ALTER TABLE jobs
    ADD COLUMN queue_position     integer,
    ADD COLUMN pending_code       text NOT NULL DEFAULT '',
    ADD COLUMN pending_reason     text NOT NULL DEFAULT '',
    ADD COLUMN estimated_start_at timestamptz,
    ADD COLUMN score              double precision,
    ADD COLUMN explained_at       timestamptz,
    ADD COLUMN lease_expires_at   timestamptz,
    ADD COLUMN lease_ttl_s        bigint CHECK (lease_ttl_s > 0),
    ADD COLUMN client_ref         text NOT NULL DEFAULT '';

CREATE INDEX jobs_lease_expiry_idx ON jobs (lease_expires_at) WHERE state = 'running' AND lease_expires_at IS NOT NULL;
CREATE INDEX jobs_ended_idx ON jobs (ended_at) WHERE ended_at IS NOT NULL;

-- idempotency_keys remembers the answer to a state-changing POST sent with
-- an Idempotency-Key, so a retry gets the same answer and changes nothing.
CREATE TABLE idempotency_keys (
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key          text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    route        text NOT NULL,
    request_hash bytea NOT NULL,
    status       integer NOT NULL,
    response     text NOT NULL, -- the answer's JSON, byte for byte
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
