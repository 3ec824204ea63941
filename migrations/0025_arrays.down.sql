DELETE FROM job_dependencies WHERE on_array;
ALTER TABLE job_dependencies DROP CONSTRAINT job_dependencies_pkey;
ALTER TABLE job_dependencies ADD PRIMARY KEY (job_id, on_job_id, kind);
ALTER TABLE job_dependencies DROP COLUMN on_array;
DROP INDEX jobs_array_task_key;
ALTER TABLE jobs
    DROP CONSTRAINT jobs_array_task_check,
    DROP COLUMN array_task_id,
    DROP COLUMN array_job_id;
DROP TABLE job_arrays;
