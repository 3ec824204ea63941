-- 0030: a job's shape (Slurm's -N with --gpus-per-node): above 1, the job takes
-- exactly this many nodes with gpu_count / nodes GPUs on each; 0 none.
ALTER TABLE jobs ADD COLUMN nodes integer NOT NULL DEFAULT 0 CHECK (nodes >= 0);
