package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// What counts as a lost connection: the server ending every session, the
// network failing; not a canceled statement, a timeout or a query error.
func TestIsConnLoss(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		err  error
		want bool
	}{
		"nil":                {nil, false},
		"admin shutdown":     {&pgconn.PgError{Code: "57P01"}, true},
		"crash shutdown":     {&pgconn.PgError{Code: "57P02"}, true},
		"cannot connect now": {fmt.Errorf("begin: %w", &pgconn.PgError{Code: "57P03"}), true},
		"connection failure": {&pgconn.PgError{Code: "08006"}, true},
		"unique violation":   {&pgconn.PgError{Code: "23505"}, false},
		"idle session ended": {&pgconn.PgError{Code: "57P05"}, false},
		"query canceled":     {&pgconn.PgError{Code: "57014"}, false},
		"refused":            {&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		"reset":              {fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		"broken pipe":        {fmt.Errorf("write: %w", syscall.EPIPE), true},
		"end of stream":      {fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF), true},
		"context canceled":   {fmt.Errorf("query: %w", context.Canceled), false},
		"deadline exceeded":  {context.DeadlineExceeded, false},
		"some other error":   {errors.New("models: get job 1: not found"), false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := isConnLoss(tc.err); got != tc.want {
				t.Errorf("isConnLoss(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// errorResponse is a FATAL ErrorResponse as the server sends it, fields in
// its order.
func errorResponse(code string) []byte {
	body := []byte("SFATAL\x00VFATAL\x00C" + code + "\x00Mterminating connection due to administrator command\x00\x00")
	n := len(body) + 4
	return append([]byte{'E', byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, body...)
}

// What the server left on an idle connection: its goodbye and why, or
// something pgx reads with the next statement.
func TestGoodbye(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		b         []byte
		wantEnded bool
		wantCode  string
	}{
		"admin shutdown":      {errorResponse("57P01"), true, "57P01"},
		"idle session ended":  {errorResponse("57P05"), true, "57P05"},
		"cut before the code": {errorResponse("57P01")[:12], true, ""},
		"notification":        {[]byte("A\x00\x00\x00\x10"), false, ""},
		"notice":              {[]byte("N\x00\x00\x00\x08SWARNING\x00"), false, ""},
		"parameter status":    {[]byte("S\x00\x00\x00\x08"), false, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ended, code := goodbye(tc.b)
			if ended != tc.wantEnded || code != tc.wantCode {
				t.Errorf("goodbye = %v %q, want %v %q", ended, code, tc.wantEnded, tc.wantCode)
			}
		})
	}
}
