ALTER TABLE bookings DROP COLUMN pinned_gpu_ids;
