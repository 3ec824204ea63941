DROP INDEX notifications_channel_claimed_idx;
ALTER TABLE notifications DROP COLUMN claimed_at;
