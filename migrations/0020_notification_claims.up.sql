-- A delivery is claimed in a short transaction under its channel's lock and
-- sent after the commit: claimed_at is when it was last claimed for a send,
-- and a channel's rate limit counts the claims of the last minute (sends in
-- flight and failed ones included), not only the deliveries that succeeded.
ALTER TABLE notifications ADD COLUMN claimed_at timestamptz;
CREATE INDEX notifications_channel_claimed_idx ON notifications (channel_id, claimed_at) WHERE claimed_at IS NOT NULL;
-- Deliveries sent before claims were recorded count for the minute after.
UPDATE notifications SET claimed_at = delivered_at
    WHERE channel_id IS NOT NULL AND delivered_at > now() - interval '1 minute';
