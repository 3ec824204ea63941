-- A booking may take part of one shared GPU (kind 'share' slots, 0026):
-- gpu_share is the fraction it books (gpu_count is then 1); the slots that
-- hold it are pinned by the scheduling pass as a share job's would be. A
-- booking of a named shared GPU lists that GPU's slots in booking_gpus.
ALTER TABLE bookings
    ADD COLUMN gpu_share double precision NOT NULL DEFAULT 0 CHECK (gpu_share >= 0 AND gpu_share <= 1),
    ADD CONSTRAINT bookings_share_count_check CHECK (gpu_share = 0 OR gpu_count = 1);

-- The MIG layout an admin declares for a node ("gpu 0-3: 7×1g.10gb; gpu
-- 4: 2×3g.40gb"; NULL: none declared, its agent leaves MIG alone), which
-- its agent applies to free GPUs, and what the agent last reported doing.
ALTER TABLE nodes
    ADD COLUMN mig_layout text,
    ADD COLUMN mig_layout_report text NOT NULL DEFAULT '',
    ADD COLUMN mig_layout_reported_at timestamptz;
