-- Booking edits: edits bump a booking's sequence and
-- last-modified time so calendar feeds show updates on refresh; recurring
-- bookings share a series id; imported rows keep a fingerprint so that a
-- re-import reports them instead of duplicating them; calendar feeds are
-- reached by a secret token stored hashed.
ALTER TABLE bookings
    ADD COLUMN series_id          bigint,
    ADD COLUMN sequence           integer NOT NULL DEFAULT 0,
    ADD COLUMN updated_at         timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN ended_early_at     timestamptz,
    ADD COLUMN import_fingerprint text;
CREATE INDEX bookings_series_idx ON bookings (series_id) WHERE series_id IS NOT NULL;
CREATE UNIQUE INDEX bookings_import_fingerprint_idx ON bookings (import_fingerprint)
    WHERE import_fingerprint IS NOT NULL;
CREATE SEQUENCE booking_series_seq;

-- calendar_feeds: one live secret token per user and scope ('mine': the
-- user's bookings, holds and jobs; 'team': everyone's bookings).
CREATE TABLE calendar_feeds (
    id         bigserial PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    scope      text NOT NULL CHECK (scope IN ('mine', 'team')),
    token_hash bytea NOT NULL UNIQUE,
    prefix     text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE UNIQUE INDEX calendar_feeds_live_idx ON calendar_feeds (user_id, scope) WHERE revoked_at IS NULL;
