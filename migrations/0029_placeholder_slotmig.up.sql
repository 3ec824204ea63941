-- Placeholder for this branch only: 0029 belongs to another branch; drop this file when merging.
SELECT 1;
