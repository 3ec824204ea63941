// Package pgembed starts a private PostgreSQL server from the system's own
// binaries (initdb, pg_ctl, postgres, psql), for `gpusched serve --dev`
// when no DATABASE_URL is set and for tests as a last resort. It needs
// PostgreSQL installed (any version from 10 on) and a Unix system.
//
// The server keeps its data in Options.DataDir, writes its own log to
// DataDir+".log", and listens on 127.0.0.1 at a free port and on a unix
// socket in a short private folder under the temporary folder. Trust
// authentication is used: any local account may connect as the postgres
// superuser over TCP, which is fine for a development machine and nothing
// else. Under root the server runs as an unprivileged system user; see
// Start.
//
// The server runs detached in its own session (pg_ctl starts it so): a
// Ctrl-C in the terminal does not reach it, and it outlives the process
// that started it. Callers must stop it themselves on the way out:
//
//	ctx, cancel := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
//	defer cancel()
//	srv, err := pgembed.Start(ctx, opts)
//	if err != nil { ... }
//	defer srv.Stop(ctx) // runs even though ctx is cancelled by then
//	... serve until ctx is done ...
//
// A server left running by a process that died without Stop (kill -9, a
// panic in another goroutine) is stopped and started afresh by the next
// Start on the same folder. Meanwhile another process, such as a second
// terminal's `gpusched token create`, finds a running server with Running.
package pgembed

import "log/slog"

// Options configures a private server.
type Options struct {
	DataDir  string       // data folder, e.g. ".data/postgres"; created if missing; reused on a second start
	Database string       // database to create if missing (e.g. "gpusched"); "" means "postgres"
	Logger   *slog.Logger // required
	BinDir   string       // optional: folder holding initdb/pg_ctl/postgres; else discovered
	// Port is a fixed TCP port; 0 picks a free one. A fixed port lets a
	// server restarted on the same folder keep its URL (tests of restarts).
	Port int
}
