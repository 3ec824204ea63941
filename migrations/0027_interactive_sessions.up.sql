-- Interactive sessions (issue 27): a Jupyter notebook, TensorBoard or any web
-- tool on a job's GPUs, reached through the control plane at /s/{job_id}/.
-- The job is an ordinary job (queued, scheduled, stopped and ended by the
-- lifecycle); this row holds what only a session has: its kind, which node
-- serves it and where the node agent that serves it listens (agent_url) and the node token the
-- control plane signs its requests with (token_prefix: the key is that
-- token's stored hash), when its server first answered, and the last
-- activity seen (through the proxy, or Jupyter's own /api/status).
CREATE TABLE interactive_sessions (
    job_id           bigint PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    kind             text NOT NULL CHECK (kind IN ('jupyter', 'tensorboard', 'web')),
    node_id          bigint REFERENCES nodes (id) ON DELETE SET NULL,
    agent_url        text NOT NULL DEFAULT '',
    token_prefix     text NOT NULL DEFAULT '',
    ready_at         timestamptz,
    last_activity_at timestamptz,
    created_at       timestamptz NOT NULL
);
