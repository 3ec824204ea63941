DROP TRIGGER jobs_sched_xid ON jobs;
DROP FUNCTION jobs_touch_sched_xid();
DROP INDEX jobs_sched_xid_idx;
ALTER TABLE jobs DROP COLUMN sched_xid;
ALTER TABLE jobs RESET (fillfactor);
ALTER TABLE nodes RESET (fillfactor);
ALTER TABLE gpus RESET (fillfactor);
