DROP INDEX jobs_submit_token_key;
ALTER TABLE jobs DROP COLUMN submit_token;
