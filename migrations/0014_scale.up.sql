-- Scale: rows rewritten all the time keep room on their page, so PostgreSQL
-- updates them in place (HOT: no index entries, less WAL): GPUs and nodes on
-- every heartbeat, queued jobs on every pass that changes their explanation.
ALTER TABLE gpus SET (fillfactor = 50);
ALTER TABLE nodes SET (fillfactor = 50);
ALTER TABLE jobs SET (fillfactor = 80);

-- sched_xid is the transaction that last changed what the scheduler decides
-- on about a job (not its explanation): a replica's in-memory snapshot
-- reloads just the jobs whose sched_xid its previous load could not see
-- (models/snapshot_cache.go).
ALTER TABLE jobs ADD COLUMN sched_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX jobs_sched_xid_idx ON jobs (sched_xid);

CREATE FUNCTION jobs_touch_sched_xid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.sched_xid := pg_current_xact_id();
    RETURN NEW;
END $$;

CREATE TRIGGER jobs_sched_xid BEFORE UPDATE ON jobs FOR EACH ROW
WHEN ((OLD.state, OLD.owner_id, OLD.team_id, OLD.name, OLD.gpu_count, OLD.gpu_memory_mib, OLD.gpu_model,
       OLD.allow_multi_node, OLD.priority, OLD.preemptible, OLD.submitted_at, OLD.node_id,
       OLD.estimated_duration_s, OLD.job_type, OLD.started_at, OLD.scheduled_at)
      IS DISTINCT FROM
      (NEW.state, NEW.owner_id, NEW.team_id, NEW.name, NEW.gpu_count, NEW.gpu_memory_mib, NEW.gpu_model,
       NEW.allow_multi_node, NEW.priority, NEW.preemptible, NEW.submitted_at, NEW.node_id,
       NEW.estimated_duration_s, NEW.job_type, NEW.started_at, NEW.scheduled_at))
EXECUTE FUNCTION jobs_touch_sched_xid();
