DROP INDEX IF EXISTS bookings_live_holds_idx;
ALTER TABLE bookings
    DROP CONSTRAINT IF EXISTS bookings_hold_end_check,
    DROP COLUMN IF EXISTS job_type,
    DROP COLUMN IF EXISTS min_memory_mib,
    DROP COLUMN IF EXISTS expired_at,
    DROP COLUMN IF EXISTS consumed_by_job,
    DROP COLUMN IF EXISTS consumed_at;
