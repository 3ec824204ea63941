-- Placeholder on the sessions branch only: 0026 is another branch's number, and
-- versions must run without gaps. Drop this file (and its down half) when that
-- branch's 0026 is merged.
SELECT 1;
