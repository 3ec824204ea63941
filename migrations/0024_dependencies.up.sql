-- Dependencies between jobs, as Slurm's --dependency: a job waits until
-- other jobs end (any), end completed (ok) or end otherwise (notok:
-- failed, canceled, timeout); singleton waits for the owner's earlier jobs
-- of the same name. One row per condition; met_at is when it was met. A
-- condition that can never be met cancels the waiting job. on_job_id has
-- no foreign key: the job waited for may be deleted by retention once
-- everything that waited for it is settled.
CREATE TABLE job_dependencies (
    job_id    bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    kind      text NOT NULL CHECK (kind IN ('ok', 'any', 'notok', 'singleton')),
    on_job_id bigint NOT NULL,
    met_at    timestamptz,
    PRIMARY KEY (job_id, on_job_id, kind)
);
-- The conditions a job's end may settle.
CREATE INDEX job_dependencies_on_idx ON job_dependencies (on_job_id) WHERE met_at IS NULL;

-- The conditions a queued job still waits for, as "kind:id,…" in id order
-- (what the scheduler reads); '' when none.
ALTER TABLE jobs ADD COLUMN waits_for text NOT NULL DEFAULT '';

DROP TRIGGER jobs_sched_xid ON jobs;
CREATE TRIGGER jobs_sched_xid BEFORE UPDATE ON jobs FOR EACH ROW
WHEN ((OLD.state, OLD.owner_id, OLD.team_id, OLD.name, OLD.gpu_count, OLD.gpu_memory_mib, OLD.gpu_model,
       OLD.allow_multi_node, OLD.priority, OLD.preemptible, OLD.submitted_at, OLD.node_id,
       OLD.estimated_duration_s, OLD.job_type, OLD.started_at, OLD.scheduled_at, OLD.stop_kind, OLD.time_limit_s,
       OLD.waits_for)
      IS DISTINCT FROM
      (NEW.state, NEW.owner_id, NEW.team_id, NEW.name, NEW.gpu_count, NEW.gpu_memory_mib, NEW.gpu_model,
       NEW.allow_multi_node, NEW.priority, NEW.preemptible, NEW.submitted_at, NEW.node_id,
       NEW.estimated_duration_s, NEW.job_type, NEW.started_at, NEW.scheduled_at, NEW.stop_kind, NEW.time_limit_s,
       NEW.waits_for))
EXECUTE FUNCTION jobs_touch_sched_xid();
