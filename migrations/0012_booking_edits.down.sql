DROP TABLE IF EXISTS calendar_feeds;
DROP SEQUENCE IF EXISTS booking_series_seq;
DROP INDEX IF EXISTS bookings_import_fingerprint_idx;
DROP INDEX IF EXISTS bookings_series_idx;
ALTER TABLE bookings
    DROP COLUMN IF EXISTS import_fingerprint,
    DROP COLUMN IF EXISTS ended_early_at,
    DROP COLUMN IF EXISTS updated_at,
    DROP COLUMN IF EXISTS sequence,
    DROP COLUMN IF EXISTS series_id;
