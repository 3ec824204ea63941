ALTER TABLE gpu_samples DROP COLUMN utilization_max;
ALTER TABLE gpus DROP COLUMN sample_at, DROP COLUMN sample_beats, DROP COLUMN sample_util_sum, DROP COLUMN sample_util_max;
DELETE FROM gpu_samples s WHERE NOT EXISTS (SELECT 1 FROM gpus g WHERE g.id = s.gpu_id)
    OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.id = s.node_id);
ALTER TABLE gpu_samples ADD CONSTRAINT gpu_samples_gpu_id_fkey FOREIGN KEY (gpu_id) REFERENCES gpus (id) ON DELETE CASCADE;
ALTER TABLE gpu_samples ADD CONSTRAINT gpu_samples_node_id_fkey FOREIGN KEY (node_id) REFERENCES nodes (id) ON DELETE CASCADE;
