DROP TABLE IF EXISTS queue_samples;
DROP TABLE IF EXISTS gpu_rollups;
DROP TABLE IF EXISTS gpu_samples;
