-- Slot devices are kept for the history that refers to them, as whole GPUs
-- no longer present: their nodes register again as whole GPUs.
DROP TABLE job_memory_overruns;
ALTER TABLE jobs DROP COLUMN share_memory_mib, DROP COLUMN gpu_share;
UPDATE gpus SET present = false, kind = 'whole', parent_uuid = NULL, slices = 0, parent_slices = 0 WHERE kind = 'share';
ALTER TABLE gpus
    DROP CONSTRAINT gpus_kind_check,
    DROP CONSTRAINT gpus_mig_check,
    DROP COLUMN fraction;
ALTER TABLE gpus
    ADD CONSTRAINT gpus_kind_check CHECK (kind IN ('whole', 'mig')),
    ADD COLUMN fraction double precision NOT NULL GENERATED ALWAYS AS (
        CASE WHEN kind = 'mig' AND parent_slices > 0 THEN slices::double precision / parent_slices ELSE 1 END) STORED,
    ADD CONSTRAINT gpus_mig_check CHECK (
        (kind = 'whole' AND parent_uuid IS NULL AND profile = '')
        OR (kind = 'mig' AND parent_uuid IS NOT NULL AND profile <> '' AND slices > 0 AND parent_slices >= slices));
