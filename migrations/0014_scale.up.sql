-- Scale: rows rewritten all the time keep room on their page, so PostgreSQL
-- updates them in place (HOT: no index entries, less WAL): GPUs and nodes on
-- every heartbeat, queued jobs on every pass that changes their explanation.
ALTER TABLE gpus SET (fillfactor = 50);
ALTER TABLE nodes SET (fillfactor = 50);
ALTER TABLE jobs SET (fillfactor = 80);
