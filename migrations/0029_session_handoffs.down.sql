DROP TABLE IF EXISTS session_handoffs;
