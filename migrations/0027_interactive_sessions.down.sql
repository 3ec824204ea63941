DROP TABLE IF EXISTS interactive_sessions;
