package models

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Event is one change signal: the topic ("jobs", "gpus", "nodes",
// "bookings") and the payload the writer sent.
type Event struct {
	Topic   string
	Payload string
}

// Listener holds one dedicated connection that LISTENs on every channel and
// fans the notifications out to in-process subscribers: the SSE hub, node
// long-polls, blocked acquire calls and the scheduling pass.
//
// It reports its connection to the DB whose pool it was made from: a lost
// connection discards the pools' connections, and the DB is not ready until
// the listener is connected again (DB.Ready).
type Listener struct {
	cfg    *pgx.ConnConfig
	logger *slog.Logger
	health *connHealth // nil for a pool that Open did not make

	mu   sync.Mutex
	subs map[*subscription]struct{}
}

type subscription struct {
	topics map[string]bool
	ch     chan Event
}

// NewListener prepares a listener using pool's connection settings; Run
// starts it.
func NewListener(pool *pgxpool.Pool, logger *slog.Logger) *Listener {
	cfg := pool.Config().ConnConfig.Copy()
	health, _ := cfg.Tracer.(*connHealth) // the DB's, carried by its pools' settings
	return &Listener{cfg: cfg, logger: logger, health: health, subs: map[*subscription]struct{}{}}
}

// Topic returns the short topic name of a channel ("gpusched_gpus" → "gpus").
func Topic(channel string) string { return strings.TrimPrefix(channel, "gpusched_") }

// Subscribe returns a channel of events for the given topics (all when none
// are given) and a function that ends the subscription. Delivery never
// blocks the listener: a subscriber that falls behind loses events, which is
// safe because every event means only "look again".
func (l *Listener) Subscribe(topics ...string) (<-chan Event, func()) {
	s := &subscription{topics: map[string]bool{}, ch: make(chan Event, 64)}
	for _, t := range topics {
		s.topics[t] = true
	}
	l.mu.Lock()
	l.subs[s] = struct{}{}
	l.mu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			l.mu.Lock()
			delete(l.subs, s)
			l.mu.Unlock()
		})
	}
}

func (l *Listener) publish(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for s := range l.subs {
		if len(s.topics) > 0 && !s.topics[e.Topic] {
			continue
		}
		select {
		case s.ch <- e:
		default:
		}
	}
}

// Run listens until ctx ends, reconnecting with backoff. After a reconnect it
// publishes an event on every topic, since notifications sent while it was
// away are lost and subscribers must look again. The backoff stays short
// (at most a second) because the server is not ready while it waits.
func (l *Listener) Run(ctx context.Context) {
	defer l.health.listenerGone(l)
	backoff := 250 * time.Millisecond
	first := true
	for ctx.Err() == nil {
		err := l.listen(ctx, func() {
			backoff = 250 * time.Millisecond
			l.health.listenerUp(l)
			if !first {
				for _, ch := range Channels {
					l.publish(Event{Topic: Topic(ch), Payload: "reconnect"})
				}
			}
			first = false
		})
		if ctx.Err() != nil {
			return
		}
		l.health.listenerDown(l, err)
		l.logger.Warn("listener: connection lost; reconnecting", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, time.Second)
	}
}

func (l *Listener) listen(ctx context.Context, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, l.cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, ch := range Channels {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return err
		}
	}
	connected()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		l.publish(Event{Topic: Topic(n.Channel), Payload: n.Payload})
	}
}
