package models

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Signaler sends change signals after a commit, coalesced, for the hot
// paths where a NOTIFY inside the transaction would cost too much:
// PostgreSQL holds its global notify-queue lock through the commit of every
// transaction that notifies, so commits that notify are serialised and lose
// group commit — queue submissions would be capped near one per WAL flush.
// Instead the handler commits, then calls Signal: the first signal of a
// quiet channel is sent at once, later ones within Window are folded into
// one more at the window's end. A signal is only ever a hint to look again;
// were one lost to a crash between commit and send, the periodic pass and
// the pages' polling pick the change up.
type Signaler struct {
	Pool   *pgxpool.Pool
	Logger *slog.Logger
	// Window is the shortest gap between two signals of one channel.
	Window time.Duration

	mu       sync.Mutex
	channels map[string]*signalState
}

type signalState struct {
	last    time.Time
	pending string // payload of a signal folded into the trailing send
	timer   *time.Timer
}

// Signal announces a committed change on channel.
func (n *Signaler) Signal(channel, payload string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.channels == nil {
		n.channels = map[string]*signalState{}
	}
	st := n.channels[channel]
	if st == nil {
		st = &signalState{}
		n.channels[channel] = st
	}
	if st.timer != nil {
		st.pending = payload // the trailing send will carry it
		return
	}
	wait := n.Window - time.Since(st.last)
	if wait <= 0 {
		st.last = time.Now()
		go n.send(channel, payload)
		return
	}
	st.pending = payload
	st.timer = time.AfterFunc(wait, func() {
		n.mu.Lock()
		p := st.pending
		st.timer, st.pending, st.last = nil, "", time.Now()
		n.mu.Unlock()
		n.send(channel, p)
	})
}

func (n *Signaler) send(channel, payload string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := n.Pool.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, payload); err != nil {
		n.Logger.Warn("could not send a change signal; periodic work will catch up", "channel", channel, "err", err)
	}
}
