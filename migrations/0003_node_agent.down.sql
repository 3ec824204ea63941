ALTER TABLE gpus DROP COLUMN idle_since;
ALTER TABLE jobs DROP COLUMN node_id;
DROP TABLE job_logs;
DROP TABLE node_commands;
