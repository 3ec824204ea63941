-- Shared GPUs: a GPU an admin shares N ways (time-sliced) is registered by
-- its agent as N slot devices in its place (kind 'share'): each names its
-- GPU by UUID, keeps the GPU's index and model, has 1/N of its memory and
-- is 1/N of a GPU (slices 1 of parent_slices N), which fair share charges.
-- A slot is held by at most one allocation, as any device: a shared GPU is
-- never over-committed. Jobs ask for a fraction (gpu_share) or memory
-- (share_memory_mib) of one shared GPU.
ALTER TABLE gpus
    DROP CONSTRAINT gpus_kind_check,
    DROP CONSTRAINT gpus_mig_check,
    DROP COLUMN fraction;
ALTER TABLE gpus
    ADD CONSTRAINT gpus_kind_check CHECK (kind IN ('whole', 'mig', 'share')),
    ADD COLUMN fraction double precision NOT NULL GENERATED ALWAYS AS (
        CASE WHEN kind IN ('mig', 'share') AND parent_slices > 0 THEN slices::double precision / parent_slices ELSE 1 END) STORED,
    ADD CONSTRAINT gpus_mig_check CHECK (
        (kind = 'whole' AND parent_uuid IS NULL AND profile = '')
        OR (kind = 'mig' AND parent_uuid IS NOT NULL AND profile <> '' AND slices > 0 AND parent_slices >= slices)
        OR (kind = 'share' AND parent_uuid IS NOT NULL AND profile = '' AND slices = 1 AND parent_slices >= 2));

ALTER TABLE jobs
    ADD COLUMN gpu_share double precision NOT NULL DEFAULT 0 CHECK (gpu_share >= 0 AND gpu_share <= 1),
    ADD COLUMN share_memory_mib bigint NOT NULL DEFAULT 0 CHECK (share_memory_mib >= 0);

-- A share job whose processes use more GPU memory than its share, as its
-- node agent measures: since when (the overrun policy stops it after its
-- grace), and the last reading. The row goes when the job is back under.
CREATE TABLE job_memory_overruns (
    job_id bigint PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    since timestamptz NOT NULL,
    used_mib bigint NOT NULL,
    limit_mib bigint NOT NULL,
    updated_at timestamptz NOT NULL
);
