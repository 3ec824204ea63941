-- The job lifecycle (models/lifecycle*.go). What was asked of a job that
-- holds GPUs is recorded on it, under its row lock, so that the outcome of a
-- stop is decided by precedence (a person's cancel beats a reclaim, which
-- beats a preemption) and not by which executor answered first; the
-- scheduling core sees a stop in flight (stop_kind <> '') and never asks
-- for it twice.
ALTER TABLE jobs
    ADD COLUMN stop_kind text NOT NULL DEFAULT '' CHECK (stop_kind IN
        ('', 'preempt', 'reclaim', 'time_limit', 'cancel', 'release', 'expire')),
    ADD COLUMN stop_reason text NOT NULL DEFAULT '',
    ADD COLUMN stop_by bigint REFERENCES users (id) ON DELETE SET NULL,
    ADD COLUMN stop_requested_at timestamptz,
    -- A preemption's cause as data: the job it makes room for and the rule
    -- (priority, las_demotion).
    ADD COLUMN preempted_for bigint,
    ADD COLUMN preempt_rule text NOT NULL DEFAULT '',
    -- How many times the job went back to the queue (preempted, or its run
    -- lost): a run sees it as GPUSCHED_RESTART_COUNT.
    ADD COLUMN restart_count integer NOT NULL DEFAULT 0 CHECK (restart_count >= 0),
    -- The node executor's current run: its start command.
    ADD COLUMN start_command_id bigint;

UPDATE jobs j SET restart_count = (SELECT count(*) FROM job_events e WHERE e.job_id = j.id AND e.to_state = 'preempted');

-- Why an allocation ended, as data: completed, failed, canceled, preempted,
-- reclaimed, lost, released, expired, repaired (the invariant sweep).
ALTER TABLE allocations ADD COLUMN end_cause text NOT NULL DEFAULT '';
UPDATE allocations SET end_cause = 'preempted' WHERE release_reason LIKE 'preempted for job%';

-- What the invariant sweep found and repaired: it must find nothing.
CREATE TABLE invariant_findings (
    id         bigserial PRIMARY KEY,
    kind       text NOT NULL,
    job_id     bigint,
    gpu_id     bigint,
    detail     text NOT NULL DEFAULT '',
    found_at   timestamptz NOT NULL
);

-- A stop asked of a job changes what the scheduler decides on.
DROP TRIGGER jobs_sched_xid ON jobs;
CREATE TRIGGER jobs_sched_xid BEFORE UPDATE ON jobs FOR EACH ROW
WHEN ((OLD.state, OLD.owner_id, OLD.team_id, OLD.name, OLD.gpu_count, OLD.gpu_memory_mib, OLD.gpu_model,
       OLD.allow_multi_node, OLD.priority, OLD.preemptible, OLD.submitted_at, OLD.node_id,
       OLD.estimated_duration_s, OLD.job_type, OLD.started_at, OLD.scheduled_at, OLD.stop_kind)
      IS DISTINCT FROM
      (NEW.state, NEW.owner_id, NEW.team_id, NEW.name, NEW.gpu_count, NEW.gpu_memory_mib, NEW.gpu_model,
       NEW.allow_multi_node, NEW.priority, NEW.preemptible, NEW.submitted_at, NEW.node_id,
       NEW.estimated_duration_s, NEW.job_type, NEW.started_at, NEW.scheduled_at, NEW.stop_kind))
EXECUTE FUNCTION jobs_touch_sched_xid();
