DROP TABLE IF EXISTS job_idle;
DROP TABLE IF EXISTS notifications;
DROP TABLE IF EXISTS notification_preferences;
DROP TABLE IF EXISTS notification_channels;
