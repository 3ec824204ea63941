DROP TRIGGER jobs_sched_xid ON jobs;
CREATE TRIGGER jobs_sched_xid BEFORE UPDATE ON jobs FOR EACH ROW
WHEN ((OLD.state, OLD.owner_id, OLD.team_id, OLD.name, OLD.gpu_count, OLD.gpu_memory_mib, OLD.gpu_model,
       OLD.allow_multi_node, OLD.priority, OLD.preemptible, OLD.submitted_at, OLD.node_id,
       OLD.estimated_duration_s, OLD.job_type, OLD.started_at, OLD.scheduled_at)
      IS DISTINCT FROM
      (NEW.state, NEW.owner_id, NEW.team_id, NEW.name, NEW.gpu_count, NEW.gpu_memory_mib, NEW.gpu_model,
       NEW.allow_multi_node, NEW.priority, NEW.preemptible, NEW.submitted_at, NEW.node_id,
       NEW.estimated_duration_s, NEW.job_type, NEW.started_at, NEW.scheduled_at))
EXECUTE FUNCTION jobs_touch_sched_xid();
DROP TABLE invariant_findings;
ALTER TABLE allocations DROP COLUMN end_cause;
ALTER TABLE jobs
    DROP COLUMN start_command_id,
    DROP COLUMN restart_count,
    DROP COLUMN preempt_rule,
    DROP COLUMN preempted_for,
    DROP COLUMN stop_requested_at,
    DROP COLUMN stop_by,
    DROP COLUMN stop_reason,
    DROP COLUMN stop_kind;
