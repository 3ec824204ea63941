DROP TABLE IF EXISTS idempotency_keys;
DROP INDEX IF EXISTS jobs_ended_idx;
DROP INDEX IF EXISTS jobs_lease_expiry_idx;
ALTER TABLE jobs
    DROP COLUMN IF EXISTS client_ref,
    DROP COLUMN IF EXISTS lease_ttl_s,
    DROP COLUMN IF EXISTS lease_expires_at,
    DROP COLUMN IF EXISTS explained_at,
    DROP COLUMN IF EXISTS score,
    DROP COLUMN IF EXISTS estimated_start_at,
    DROP COLUMN IF EXISTS pending_reason,
    DROP COLUMN IF EXISTS pending_code,
    DROP COLUMN IF EXISTS queue_position;
ALTER TABLE jobs DROP CONSTRAINT jobs_executor_check;
UPDATE jobs SET executor = CASE executor WHEN 'node' THEN 'local' WHEN 'lease' THEN 'none' ELSE executor END;
ALTER TABLE jobs ALTER COLUMN executor SET DEFAULT 'local';
ALTER TABLE jobs ADD CONSTRAINT jobs_executor_check CHECK (executor IN ('local', 'ray', 'none'));
