DROP INDEX jobs_node_leases_idx;
ALTER TABLE jobs
    DROP COLUMN lease_pid_start,
    DROP COLUMN lease_pid,
    DROP COLUMN lease_confirmed_at;
