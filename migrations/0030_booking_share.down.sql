ALTER TABLE bookings DROP CONSTRAINT IF EXISTS bookings_share_count_check, DROP COLUMN IF EXISTS gpu_share;
