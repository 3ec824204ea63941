-- Leases that survive and expire. Every lease has a TTL (the policy's
-- leases section gives the default and the cap). A granted lease runs out
-- after leases.confirm_within unless its client confirms it learned of the
-- grant (lease_confirmed_at), which sets its expiry to its whole TTL. A
-- lease made through a node agent's /acquire records the process that holds
-- it (lease_pid, and lease_pid_start, the process's start time in clock
-- ticks since boot: field 22 of /proc/PID/stat, against PID reuse), so that
-- an agent that restarts finds it, adopts it while that process runs and
-- ends it otherwise; the agent renews it while the process lives.
ALTER TABLE jobs
    ADD COLUMN lease_confirmed_at timestamptz,
    ADD COLUMN lease_pid integer CHECK (lease_pid > 0),
    ADD COLUMN lease_pid_start bigint CHECK (lease_pid_start >= 0);

-- A node's live leases, which its agent lists when it starts.
CREATE INDEX jobs_node_leases_idx ON jobs (node_id, id)
    WHERE executor = 'lease' AND state IN ('queued', 'scheduled', 'allocating', 'running');

-- Node leases made before: their process, from the name they were given
-- ("pid 1234 on gpu-a"); no start time, so only the PID can be checked.
UPDATE jobs SET lease_pid = substring(client_ref FROM '^pid ([0-9]+) on ')::integer
WHERE executor = 'lease' AND node_id IS NOT NULL AND client_ref ~ '^pid [0-9]{1,9} on '
  AND state IN ('queued', 'scheduled', 'allocating', 'running');

-- Leases granted before were handed to a client that knew of them; one
-- without a TTL gets the default TTL (8 hours) from now.
UPDATE jobs SET lease_confirmed_at = coalesce(started_at, now()),
    lease_ttl_s = coalesce(lease_ttl_s, 28800),
    lease_expires_at = coalesce(lease_expires_at, now() + interval '8 hours')
WHERE executor = 'lease' AND state = 'running';
