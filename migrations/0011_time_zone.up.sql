-- Each person's time zone (an IANA name such as Europe/Berlin) in which the
-- dashboard shows and reads times; '' until set (UTC, and the browser's zone
-- is offered on the first page view).
ALTER TABLE users ADD COLUMN time_zone text NOT NULL DEFAULT '';
