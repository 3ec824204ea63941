ALTER TABLE nodes DROP COLUMN IF EXISTS mig_layout, DROP COLUMN IF EXISTS mig_layout_report, DROP COLUMN IF EXISTS mig_layout_reported_at;
ALTER TABLE bookings DROP CONSTRAINT IF EXISTS bookings_share_count_check, DROP COLUMN IF EXISTS gpu_share;
