-- Holds: the client agent's pre-warm reservations are rows of bookings with
-- kind 'hold'. A hold ends one of three ways: its owner's next matching job
-- starts (consumed), its TTL passes unused (expired, counted for the hit
-- rate), or it is canceled.
ALTER TABLE bookings
    ADD COLUMN consumed_at     timestamptz,
    ADD COLUMN consumed_by_job bigint REFERENCES jobs (id) ON DELETE SET NULL,
    ADD COLUMN expired_at      timestamptz,
    ADD COLUMN min_memory_mib  bigint CHECK (min_memory_mib > 0),
    ADD COLUMN job_type        text NOT NULL DEFAULT '',
    ADD CONSTRAINT bookings_hold_end_check CHECK (
        kind = 'hold' OR (consumed_at IS NULL AND consumed_by_job IS NULL AND expired_at IS NULL));

-- The live holds of a user, for the per-user limit and consumption.
CREATE INDEX bookings_live_holds_idx ON bookings (user_id, id)
    WHERE kind = 'hold' AND canceled_at IS NULL AND consumed_at IS NULL AND expired_at IS NULL;
