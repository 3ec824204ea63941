-- Retention. The output kept from Ray is stored in chunks keyed by byte
-- offset, as a node run's is (job_logs): each sync appends what is new
-- instead of rewriting the whole text, and only the newest chunks up to a
-- cap are kept. job_events_pruned counts, by state, the events retention
-- deleted, so that transition counts over all time never go down.

CREATE TABLE ray_run_logs (
    run_id   bigint NOT NULL REFERENCES ray_runs (id) ON DELETE CASCADE,
    "offset" bigint NOT NULL CHECK ("offset" >= 0),
    data     bytea NOT NULL,
    PRIMARY KEY (run_id, "offset")
);
INSERT INTO ray_run_logs (run_id, "offset", data)
    SELECT id, logs_offset, logs FROM ray_runs WHERE length(logs) > 0;
ALTER TABLE ray_runs DROP COLUMN logs, DROP COLUMN logs_offset;

CREATE TABLE job_events_pruned (
    to_state text PRIMARY KEY,
    n        bigint NOT NULL CHECK (n >= 0)
);
