-- Heartbeats append GPU samples all the time: their foreign keys cost two
-- index lookups per row on that hot path for nothing, since nodes and GPUs
-- are never deleted (a GPU that went away is marked not present) and
-- retention removes old samples. The roll-ups keep theirs: they are written
-- once a minute.
ALTER TABLE gpu_samples DROP CONSTRAINT gpu_samples_gpu_id_fkey;
ALTER TABLE gpu_samples DROP CONSTRAINT gpu_samples_node_id_fkey;

-- A sample per GPU every few heartbeats (models.SampleEvery), not every
-- beat: the GPU row accumulates the beats since its last sample, and the
-- sample holds their mean utilization and its peak (NULL in samples taken
-- one per beat before: their utilization is both).
ALTER TABLE gpus ADD COLUMN sample_at timestamptz,
    ADD COLUMN sample_beats integer NOT NULL DEFAULT 0 CHECK (sample_beats >= 0),
    ADD COLUMN sample_util_sum integer NOT NULL DEFAULT 0 CHECK (sample_util_sum >= 0),
    ADD COLUMN sample_util_max smallint NOT NULL DEFAULT 0 CHECK (sample_util_max BETWEEN 0 AND 100);
ALTER TABLE gpu_samples ADD COLUMN utilization_max smallint CHECK (utilization_max BETWEEN 0 AND 100);
