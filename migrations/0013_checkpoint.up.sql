-- Checkpoint-aware preemption (attained-service scheduling): a job may say it saves its state when
-- asked to stop (SIGTERM, then stop_grace_s) and resumes from it; the scheduler keeps the GPU-seconds
-- it has had across runs (attained service) and when it was last preempted.
ALTER TABLE jobs
    ADD COLUMN checkpoint boolean NOT NULL DEFAULT false,
    ADD COLUMN stop_grace_s integer NOT NULL DEFAULT 60 CHECK (stop_grace_s BETWEEN 1 AND 3600),
    ADD COLUMN attained_gpu_s double precision NOT NULL DEFAULT 0 CHECK (attained_gpu_s >= 0),
    ADD COLUMN preempted_at timestamptz;
