-- submit_token is the submitting server's own name for a job row, chosen
-- before the insert: when the answer to an insert is lost (the connection
-- dropped after the commit), the server looks the rows up by it and inserts
-- only the missing ones, so no submission is stored twice. It is a
-- time-ordered UUID (version 7), so the index grows at its right edge as
-- the sequence's does. Jobs from before it have none.
ALTER TABLE jobs ADD COLUMN submit_token uuid;
CREATE UNIQUE INDEX jobs_submit_token_key ON jobs (submit_token);
