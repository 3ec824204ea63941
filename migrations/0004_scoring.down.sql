DROP TABLE IF EXISTS scoring_interference_stats;
DROP TABLE IF EXISTS scoring_runtime_stats;
DROP TABLE IF EXISTS scoring_observations;
