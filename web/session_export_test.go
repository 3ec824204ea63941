package web

// ForgetSessions empties this replica's session cache, so that a benchmark
// measures the database path of a look-up.
func (s *Sessions) ForgetSessions() { s.cache.clear() }
