-- Quiet hours are clock times in a zone: the user's, when set on the
-- settings page, so that 22:00–07:00 in Berlin stays 22:00–07:00 across
-- daylight-saving changes. Hours stored before are minutes of the UTC day.
ALTER TABLE notification_preferences ADD COLUMN quiet_zone text NOT NULL DEFAULT 'UTC';
COMMENT ON COLUMN notification_preferences.quiet_start IS 'quiet hours from, minutes of the day in quiet_zone';
COMMENT ON COLUMN notification_preferences.quiet_end IS 'quiet hours until, minutes of the day in quiet_zone';
