-- The GPUs the last scheduling pass kept for each booking or hold in force
-- (its named GPUs, or those it picked for a count), for the dashboard's tiles.
ALTER TABLE bookings ADD COLUMN pinned_gpu_ids bigint[];
