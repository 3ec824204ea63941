ALTER TABLE jobs
    DROP COLUMN IF EXISTS preempted_at,
    DROP COLUMN IF EXISTS attained_gpu_s,
    DROP COLUMN IF EXISTS stop_grace_s,
    DROP COLUMN IF EXISTS checkpoint;
