-- Job arrays, as Slurm's --array: one submission queues many tasks, each a
-- job of its own (scheduled, counted for fair share and quotas, ended like
-- any job) that knows its array and task id. The array's id is its first
-- task's job id (Slurm's ArrayJobId); job_arrays keeps what the tasks
-- share: the spec as submitted, the task ids' count and bounds (which each
-- task sees in its environment), how many may run at once (%N; 0: no
-- limit), and how many have ended (failed: not completed), kept by the job
-- lifecycle as each task ends.
CREATE TABLE job_arrays (
    id          bigint PRIMARY KEY,
    owner_id    bigint NOT NULL REFERENCES users (id),
    spec        text NOT NULL,
    task_count  integer NOT NULL CHECK (task_count >= 1),
    task_min    integer NOT NULL CHECK (task_min >= 0),
    task_max    integer NOT NULL CHECK (task_max >= task_min),
    max_running integer NOT NULL DEFAULT 0 CHECK (max_running >= 0),
    ended       integer NOT NULL DEFAULT 0 CHECK (ended >= 0),
    failed      integer NOT NULL DEFAULT 0 CHECK (failed >= 0),
    created_at  timestamptz NOT NULL
);

ALTER TABLE jobs
    ADD COLUMN array_job_id bigint,
    ADD COLUMN array_task_id integer CHECK (array_task_id >= 0),
    ADD CONSTRAINT jobs_array_task_check CHECK ((array_job_id IS NULL) = (array_task_id IS NULL));
CREATE UNIQUE INDEX jobs_array_task_key ON jobs (array_job_id, array_task_id) WHERE array_job_id IS NOT NULL;

-- A condition on a whole array (Slurm's afterok:ARRAY_ID): met when every
-- task has ended (afterok: completed; afternotok: one did not).
ALTER TABLE job_dependencies ADD COLUMN on_array boolean NOT NULL DEFAULT false;
ALTER TABLE job_dependencies DROP CONSTRAINT job_dependencies_pkey;
ALTER TABLE job_dependencies ADD PRIMARY KEY (job_id, on_job_id, kind, on_array);
