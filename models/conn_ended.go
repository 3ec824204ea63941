package models

import "bytes"

// goodbye reads the bytes a server sent on an idle connection (b, at least
// one byte). An ErrorResponse there is the server ending the connection
// (only a FATAL error arrives unasked); it reports that and its SQLSTATE.
// Anything else (a notice, a notification, a parameter change) is left
// for pgx to read with the next statement.
func goodbye(b []byte) (ended bool, code string) {
	if b[0] != 'E' {
		return false, ""
	}
	// 'E', a 4-byte length, then fields: a type byte and a NUL-terminated
	// value each.
	fields := b[min(len(b), 5):]
	for len(fields) > 0 && fields[0] != 0 {
		kind := fields[0]
		end := bytes.IndexByte(fields[1:], 0)
		if end < 0 {
			break // cut short by the peek
		}
		if kind == 'C' {
			return true, string(fields[1 : 1+end])
		}
		fields = fields[1+end+1:]
	}
	return true, ""
}
