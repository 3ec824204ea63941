-- Back to minutes of the UTC day, at each zone's offset today.
UPDATE notification_preferences p SET
    quiet_start = (((p.quiet_start - o.off) % 1440) + 1440) % 1440,
    quiet_end   = (((p.quiet_end - o.off) % 1440) + 1440) % 1440
FROM (SELECT user_id, (extract(epoch FROM (now() AT TIME ZONE quiet_zone) - (now() AT TIME ZONE 'UTC')) / 60)::int AS off
      FROM notification_preferences) o
WHERE o.user_id = p.user_id AND p.quiet_zone <> 'UTC';
COMMENT ON COLUMN notification_preferences.quiet_start IS NULL;
COMMENT ON COLUMN notification_preferences.quiet_end IS NULL;
ALTER TABLE notification_preferences DROP COLUMN quiet_zone;
