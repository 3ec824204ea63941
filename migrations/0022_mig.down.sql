-- MIG devices are kept for the history that refers to them, but no longer
-- present: their nodes register again as whole GPUs.
UPDATE gpus SET present = false WHERE kind = 'mig';
DROP INDEX gpus_node_idx_key;
CREATE UNIQUE INDEX gpus_node_idx_key ON gpus (node_id, idx) WHERE present;
ALTER TABLE gpus
    DROP CONSTRAINT gpus_mig_check,
    DROP COLUMN fraction,
    DROP COLUMN parent_slices,
    DROP COLUMN slices,
    DROP COLUMN profile,
    DROP COLUMN parent_uuid,
    DROP COLUMN kind;
