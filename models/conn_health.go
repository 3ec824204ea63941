package models

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// connHealth watches a DB's connections to PostgreSQL for their loss: a
// restart (fast shutdown, a killed postmaster, a crash), a failover, or
// backends terminated by an administrator. It is the tracer of both pools
// (and of the change listener, which copies their settings), so every
// statement, acquisition and listener error passes through it. When one
// shows the server went away it discards every pooled connection at once
// (pgxpool's Reset; the database/sql handle bun uses keeps none of its own,
// stdlib.OpenDBFromPool sets its idle limit to zero), so no later request is
// handed a connection the server already ended. Connections in use at that
// moment are closed when they are released.
type connHealth struct {
	losses atomic.Int64 // losses seen, each followed by a reset

	// lookAfter is how long a connection sits idle before it is looked
	// at (shouldPing), and ended how: endedByServer. Tests change both.
	lookAfter time.Duration
	ended     func(net.Conn) (bool, string)

	mu    sync.Mutex
	pools []*pgxpool.Pool
	down  map[*Listener]error // running listeners without a connection, and why
}

func newConnHealth() *connHealth {
	return &connHealth{lookAfter: 100 * time.Millisecond, ended: endedByServer, down: map[*Listener]error{}}
}

// watch adds pool to the pools reset on a loss.
func (h *connHealth) watch(pool *pgxpool.Pool) {
	h.mu.Lock()
	h.pools = append(h.pools, pool)
	h.mu.Unlock()
}

// seen looks at an error met on a connection and, when it shows the
// connection to the server was lost, discards every pooled connection.
func (h *connHealth) seen(err error) {
	if h != nil && isConnLoss(err) {
		h.lost()
	}
}

func (h *connHealth) lost() {
	h.mu.Lock()
	pools := h.pools
	h.mu.Unlock()
	for _, p := range pools {
		p.Reset()
	}
	h.losses.Add(1)
}

// shouldPing is the pools' ShouldPing, asked before a pooled connection is
// handed out. One idle over a second is pinged, as pgxpool does by default
// (a network may have dropped it without a word). One idle over lookAfter
// is looked at without a round trip (endedByServer): when the server has
// already ended it, it is pinged, the ping fails and the pool takes
// another; a server-wide goodbye (shutdown, terminate) resets both pools
// first. One used a moment ago is handed out as it is: the look costs a
// system call, and a loss since then is seen at once by the listener.
func (h *connHealth) shouldPing(_ context.Context, p pgxpool.ShouldPingParams) bool {
	switch {
	case p.IdleDuration > time.Second:
		return true
	case p.IdleDuration < h.lookAfter:
		return false
	}
	ended, code := h.ended(p.Conn.PgConn().Conn())
	if ended && (code == "" || serverGone[code]) {
		h.lost()
	}
	return ended
}

// listenerUp, listenerDown and listenerGone follow the change listeners
// that run on this DB's settings: a listener sees a restart first, since
// its connection is never idle in a pool.
func (h *connHealth) listenerUp(l *Listener) {
	if h == nil {
		return
	}
	h.mu.Lock()
	delete(h.down, l)
	h.mu.Unlock()
}

func (h *connHealth) listenerDown(l *Listener, err error) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.down[l] = err
	h.mu.Unlock()
	h.seen(err)
}

func (h *connHealth) listenerGone(l *Listener) { h.listenerUp(l) }

// listening returns why a running listener has no connection, or nil.
func (h *connHealth) listening() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, err := range h.down {
		return err
	}
	return nil
}

// serverGone are the SQLSTATEs of a server ending every connection:
// admin_shutdown (fast shutdown, pg_terminate_backend, a postmaster that
// died), crash_shutdown, cannot_connect_now (starting up or shutting down).
var serverGone = map[string]bool{"57P01": true, "57P02": true, "57P03": true}

// isConnLoss reports whether err shows the connection to PostgreSQL lost:
// the server ended it (see serverGone, and the connection_exception class
// 08), or the network did (refused, reset, broken pipe, end of stream). A
// canceled or timed-out statement is not a loss.
func isConnLoss(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return serverGone[pgErr.Code] || strings.HasPrefix(pgErr.Code, "08")
	}
	for _, target := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNREFUSED, syscall.ECONNRESET,
		syscall.ECONNABORTED, syscall.EPIPE, syscall.ENETUNREACH, syscall.EHOSTUNREACH, syscall.ETIMEDOUT} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// The pools' tracer: every error of a statement, a batch or an acquisition.

func (h *connHealth) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (h *connHealth) TraceQueryEnd(_ context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	h.seen(data.Err)
}

func (h *connHealth) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (h *connHealth) TraceBatchQuery(_ context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	h.seen(data.Err)
}

func (h *connHealth) TraceBatchEnd(_ context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	h.seen(data.Err)
}

func (h *connHealth) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	return ctx
}

func (h *connHealth) TraceAcquireEnd(_ context.Context, _ *pgxpool.Pool, data pgxpool.TraceAcquireEndData) {
	h.seen(data.Err)
}
