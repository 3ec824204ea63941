DROP TABLE job_events_pruned;

ALTER TABLE ray_runs ADD COLUMN logs bytea NOT NULL DEFAULT '', ADD COLUMN logs_offset bigint NOT NULL DEFAULT 0;
UPDATE ray_runs r SET logs = l.data, logs_offset = l.first
    FROM (SELECT run_id, min("offset") AS first, string_agg(data, ''::bytea ORDER BY "offset") AS data
          FROM ray_run_logs GROUP BY run_id) l
    WHERE l.run_id = r.id;
DROP TABLE ray_run_logs;
