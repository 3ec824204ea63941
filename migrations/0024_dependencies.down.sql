DROP TRIGGER jobs_sched_xid ON jobs;
CREATE TRIGGER jobs_sched_xid BEFORE UPDATE ON jobs FOR EACH ROW
WHEN ((OLD.state, OLD.owner_id, OLD.team_id, OLD.name, OLD.gpu_count, OLD.gpu_memory_mib, OLD.gpu_model,
       OLD.allow_multi_node, OLD.priority, OLD.preemptible, OLD.submitted_at, OLD.node_id,
       OLD.estimated_duration_s, OLD.job_type, OLD.started_at, OLD.scheduled_at, OLD.stop_kind, OLD.time_limit_s)
      IS DISTINCT FROM
      (NEW.state, NEW.owner_id, NEW.team_id, NEW.name, NEW.gpu_count, NEW.gpu_memory_mib, NEW.gpu_model,
       NEW.allow_multi_node, NEW.priority, NEW.preemptible, NEW.submitted_at, NEW.node_id,
       NEW.estimated_duration_s, NEW.job_type, NEW.started_at, NEW.scheduled_at, NEW.stop_kind, NEW.time_limit_s))
EXECUTE FUNCTION jobs_touch_sched_xid();
ALTER TABLE jobs DROP COLUMN waits_for;
DROP TABLE job_dependencies;
