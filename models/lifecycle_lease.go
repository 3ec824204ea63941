package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// A lease's time (the client runs its own process on GPUs it was granted):
// every lease has a TTL. At the grant (Place) it runs out after the
// policy's confirm_within unless its client confirms that it learned of the
// grant (ConfirmLease), which gives it its whole TTL; a client renews it
// (RenewLease), a node agent renews those it watches (RenewNodeLeases).
// The expiry sweep (jobs/lease_expiry.go) ends a lease past its expiry
// through RequestStop (StopExpire).

// ErrNotALease: the job runs on an executor, not as a lease.
var ErrNotALease = errors.New("job is not a lease")

// AgentWatched reports whether j is a lease that a node agent watches: one
// made through the agent's /acquire for a local process, which the agent
// renews while the process lives.
func (j *Job) AgentWatched() bool { return j.Executor == ExecutorLease && j.LeasePID != nil }

// grantLease adds to c, the placing of lease j, its TTL (its own, else the
// policy's default) and its expiry until its client confirms the grant.
func grantLease(c *change, j *Job, p scheduler.LeasePolicy, now time.Time) {
	ttl := time.Duration(p.Resolved().DefaultTTL)
	if j.LeaseTTLS != nil && *j.LeaseTTLS > 0 {
		ttl = time.Duration(*j.LeaseTTLS) * time.Second
	} else {
		c.val("lease_ttl_s", int64(ttl/time.Second))
	}
	c.val("lease_expires_at", p.GrantedUntil(ttl, now))
	c.val("lease_confirmed_at", nil)
}

// ConfirmLease records, in tx, that the client of granted lease j learned
// of the grant: its expiry moves to its whole TTL from now. It reports
// whether it confirmed anything: a lease confirmed before, not running, or
// a job that is no lease is left as it is.
func (lc *Lifecycle) ConfirmLease(ctx context.Context, tx *Tx, j *LockedJob, now time.Time) (bool, error) {
	if err := j.in(tx); err != nil {
		return false, err
	}
	if j.Executor != ExecutorLease || j.State != JobRunning || j.LeaseConfirmedAt != nil {
		return false, nil
	}
	var c change
	c.val("lease_confirmed_at", now)
	if j.LeaseTTLS != nil {
		c.val("lease_expires_at", now.Add(time.Duration(*j.LeaseTTLS)*time.Second))
	}
	return true, lc.apply(ctx, tx, j, c, now)
}

// RenewLease renews lease j for ttl from now on its client's behalf, in tx,
// and makes ttl its TTL: a granted lease runs until now+ttl (and is
// confirmed: its client knows of it), a waiting one gets ttl once granted.
// The caller checked ttl against the policy's cap. An ended lease answers
// ErrJobEnded, a job that is no lease ErrNotALease.
func (lc *Lifecycle) RenewLease(ctx context.Context, tx *Tx, j *LockedJob, ttl time.Duration, now time.Time) error {
	if err := j.in(tx); err != nil {
		return err
	}
	switch {
	case j.Executor != ExecutorLease:
		return fmt.Errorf("models: renew job %d (%s): %w", j.ID, j.Executor, ErrNotALease)
	case IsTerminal(j.State):
		return fmt.Errorf("models: renew lease %d (%s): %w", j.ID, j.State, ErrJobEnded)
	case ttl < time.Second:
		return fmt.Errorf("models: renew lease %d: a TTL of %s is too short", j.ID, ttl)
	}
	var c change
	c.val("lease_ttl_s", int64(ttl/time.Second))
	if j.holds() {
		c.val("lease_expires_at", now.Add(ttl.Truncate(time.Second)))
		if j.LeaseConfirmedAt == nil {
			c.val("lease_confirmed_at", now)
		}
	}
	return lc.apply(ctx, tx, j, c, now)
}

// renewNodeLeasesSQL renews the named granted leases of one node that its
// agent watches, each for its own TTL from now, locking their rows in id
// order (as LockMany does, so it never deadlocks with a pass): a lease that
// ended or was requeued meanwhile is left alone.
const renewNodeLeasesSQL = `
UPDATE jobs SET lease_expires_at = ?0::timestamptz + lease_ttl_s * interval '1 second',
    lease_confirmed_at = coalesce(lease_confirmed_at, ?0::timestamptz)
WHERE id IN (SELECT id FROM jobs WHERE id IN (?1) AND node_id = ?2 AND executor = 'lease'
    AND lease_pid IS NOT NULL AND lease_ttl_s IS NOT NULL AND state = 'running' ORDER BY id FOR UPDATE)
RETURNING id`

// RenewNodeLeases renews, for node nodeID's agent, the leases ids whose
// processes it watches and that still run (a heartbeat names them): each
// runs for its TTL (the policy's node_ttl when it was made) from now, and
// counts as confirmed. It returns the ids it renewed; the others are no
// longer granted on that node.
func (lc *Lifecycle) RenewNodeLeases(ctx context.Context, db bun.IDB, nodeID int64, ids []int64, now time.Time) ([]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var renewed []int64
	if err := db.NewRaw(renewNodeLeasesSQL, now, bun.In(ids), nodeID).Scan(ctx, &renewed); err != nil {
		return nil, fmt.Errorf("models: renew the leases of node %d: %w", nodeID, err)
	}
	return renewed, nil
}

// PinLease makes new lease j, in tx, one for process pid (started at
// start, in clock ticks since boot; 0: unknown) on node nodeID, which that
// node's agent watches.
func PinLease(ctx context.Context, tx *Tx, j *Job, nodeID int64, pid int, start int64) error {
	j.NodeID, j.LeasePID = &nodeID, &pid
	if start > 0 {
		j.LeasePIDStart = &start
	}
	if _, err := tx.NewUpdate().Model(j).Column("node_id", "lease_pid", "lease_pid_start").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("models: pin lease %d to node %d: %w", j.ID, nodeID, err)
	}
	return nil
}
