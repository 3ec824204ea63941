package main

import (
	"context"
	"log/slog"
	"strings"
)

// quietHandler demotes to debug the records that say nothing to a person
// watching the console: River's own chatter (its producers' job counts
// every few seconds, its client starting and stopping, its migrations),
// each migration applied, the node agents' requests (heartbeats and their
// long-polls for commands, every few seconds per node), and the
// simulated nodes' echo of what the server says itself (registered, job
// started). Warnings and errors
// pass as they are, and so does everything at debug level when the log
// is asked for it.
type quietHandler struct {
	next slog.Handler
	// pages: in development every request line is demoted (the console
	// shows events, not the browser's own page loads); in production only
	// the node agents' ones.
	pages bool
	// attrs are those the logger was given with With: River's
	// component=river, a simulated node's sim_node.
	attrs []slog.Attr
}

// quiet wraps h; dev also demotes every successful request.
func quiet(h slog.Handler, dev bool) slog.Handler { return &quietHandler{next: h, pages: dev} }

// Enabled is the next handler's: a record is only ever demoted, so one
// the next handler refuses stays refused.
func (q *quietHandler) Enabled(ctx context.Context, l slog.Level) bool { return q.next.Enabled(ctx, l) }

func (q *quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn && q.noisy(r) {
		if !q.next.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	if !q.next.Enabled(ctx, r.Level) {
		return nil
	}
	return q.next.Handle(ctx, r)
}

// noisy says whether r is a record the console does not need.
func (q *quietHandler) noisy(r slog.Record) bool {
	switch r.Message {
	case "river migration applied", "migration applied":
		return true
	}
	if strings.HasPrefix(r.Message, "rivermigrate") {
		return true
	}
	var river, sim bool
	var route string
	var status int64
	see := func(a slog.Attr) bool {
		switch a.Key {
		case "component":
			river = a.Value.String() == "river"
		case "sim_node":
			sim = true
		case "route":
			route = a.Value.String()
		case "status":
			status = a.Value.Int64()
		}
		return true
	}
	for _, a := range q.attrs {
		see(a)
	}
	r.Attrs(see)
	switch {
	case river:
		return true
	case sim && (r.Message == "node agent registered" || strings.HasPrefix(r.Message, "node: ")):
		return true // the server's own lines say it: "node registered", "job 3 started on …"
	case r.Message == "request" && status < 400:
		return q.pages || strings.HasPrefix(route, "/api/v1/nodes/") && route != "/api/v1/nodes/register"
	}
	return false
}

func (q *quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &quietHandler{next: q.next.WithAttrs(as), pages: q.pages, attrs: append(q.attrs[:len(q.attrs):len(q.attrs)], as...)}
}

func (q *quietHandler) WithGroup(name string) slog.Handler {
	return &quietHandler{next: q.next.WithGroup(name), pages: q.pages, attrs: q.attrs}
}
