-- A gpus row is a schedulable device: a whole GPU, or a MIG device of a GPU
-- in MIG mode (which is then not offered whole: its agent registers its MIG
-- devices instead). A MIG device keeps its parent's index and names its
-- parent by UUID; its profile ("1g.10gb") is what jobs ask for, and its
-- compute slices out of the parent's make its fraction of a GPU, which fair
-- share charges.
ALTER TABLE gpus
    ADD COLUMN kind text NOT NULL DEFAULT 'whole' CHECK (kind IN ('whole', 'mig')),
    ADD COLUMN parent_uuid text,
    ADD COLUMN profile text NOT NULL DEFAULT '',
    ADD COLUMN slices integer NOT NULL DEFAULT 0 CHECK (slices >= 0),
    ADD COLUMN parent_slices integer NOT NULL DEFAULT 0 CHECK (parent_slices >= 0),
    ADD COLUMN fraction double precision NOT NULL GENERATED ALWAYS AS (
        CASE WHEN kind = 'mig' AND parent_slices > 0 THEN slices::double precision / parent_slices ELSE 1 END) STORED,
    ADD CONSTRAINT gpus_mig_check CHECK (
        (kind = 'whole' AND parent_uuid IS NULL AND profile = '')
        OR (kind = 'mig' AND parent_uuid IS NOT NULL AND profile <> '' AND slices > 0 AND parent_slices >= slices));

-- MIG devices share their parent's index: the index names a whole GPU only.
DROP INDEX gpus_node_idx_key;
CREATE UNIQUE INDEX gpus_node_idx_key ON gpus (node_id, idx) WHERE present AND kind = 'whole';
