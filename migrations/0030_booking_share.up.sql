-- A booking may take part of one shared GPU (kind 'share' slots, 0026):
-- gpu_share is the fraction it books (gpu_count is then 1); the slots that
-- hold it are pinned by the scheduling pass as a share job's would be. A
-- booking of a named shared GPU lists that GPU's slots in booking_gpus.
ALTER TABLE bookings
    ADD COLUMN gpu_share double precision NOT NULL DEFAULT 0 CHECK (gpu_share >= 0 AND gpu_share <= 1),
    ADD CONSTRAINT bookings_share_count_check CHECK (gpu_share = 0 OR gpu_count = 1);
