DROP TABLE ray_cluster;
DROP TABLE ray_runs;
