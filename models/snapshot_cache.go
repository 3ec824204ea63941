package models

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
	"github.com/gpuscheduler/gpuscheduler/internal/scoring"
)

// SnapshotRebuildEvery bounds how long an in-memory snapshot lives on
// deltas before it is read again from scratch, as a safety net.
const SnapshotRebuildEvery = 5 * time.Minute

// SnapshotCache keeps one replica's live jobs in memory between passes, so
// that a pass reads from the database only the jobs changed since the last
// one: every job row carries sched_xid, the transaction that last changed
// what the scheduler decides on (migration 14), and a load reads the rows
// whose sched_xid was not visible to the previous load's snapshot
// (pg_visible_in_snapshot). Nodes, GPUs, allocations, bookings and usage
// are small and read whole every pass.
//
// It rebuilds from scratch whenever it is in doubt: at start, after a pass
// failed (it cannot know what committed), when another replica (or a paused
// pass) ran since its last pass, when the database's transaction horizon
// went backwards (a restored or replaced database), and every
// SnapshotRebuildEvery. Passes are serialised by the advisory lock; the
// mutex guards the cache itself.
type SnapshotCache struct {
	mu      sync.Mutex
	valid   bool
	seen    string // pg_snapshot of the previous load
	xmin    uint64
	passes  int64 // PassesTotal of this cache's last committed pass
	builtAt time.Time
	jobs    map[int64]*snapJob
	order   []*snapJob // jobs in submission order, dead ones among them; nil when it must be sorted again
	dead    int        // dead jobs in order

	// Full and Delta count loads of each kind (tests, metrics).
	Full, Delta int
}

// NewSnapshotCache returns an empty cache; its first load is a full one.
func NewSnapshotCache() *SnapshotCache { return &SnapshotCache{} }

// Invalidate makes the next load a full one.
func (c *SnapshotCache) Invalidate() {
	c.mu.Lock()
	c.valid = false
	c.mu.Unlock()
}

// Load is LoadSnapshot in the pass's transaction, from memory and the jobs
// changed since the previous load.
func (c *SnapshotCache) Load(ctx context.Context, tx *Tx, now time.Time, halfLife time.Duration, sc scoring.Config) (scheduler.Snapshot, Explained, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	last, err := LastPass(ctx, tx)
	if err != nil {
		c.valid = false
		return scheduler.Snapshot{}, nil, err
	}
	s, prev, err := loadSnapshot(ctx, tx, now, halfLife, sc, func(ctx context.Context, db bun.IDB, s *scheduler.Snapshot, prev Explained, types map[int64]string) error {
		return c.loadJobs(ctx, db, s, prev, types, now, last.PassesTotal)
	})
	if err != nil {
		c.valid = false
	}
	return s, prev, err
}

func (c *SnapshotCache) loadJobs(ctx context.Context, db bun.IDB, s *scheduler.Snapshot, prev Explained, types map[int64]string, now time.Time, passes int64) error {
	var seen string
	if err := db.QueryRowContext(ctx, `SELECT pg_current_snapshot()::text`).Scan(&seen); err != nil {
		return fmt.Errorf("models: snapshot horizon: %w", err)
	}
	xmin, err := strconv.ParseUint(seen[:strings.IndexByte(seen, ':')], 10, 64)
	if err != nil {
		return fmt.Errorf("models: snapshot horizon %q: %w", seen, err)
	}
	full := !c.valid || passes != c.passes || xmin < c.xmin || now.Sub(c.builtAt) >= SnapshotRebuildEvery || now.Before(c.builtAt)
	var q string
	var args []any
	if full {
		c.jobs, c.order, c.dead, c.builtAt = map[int64]*snapJob{}, nil, 0, now
		q = `SELECT ` + snapshotJobColumns + ` FROM jobs j WHERE j.state IN ('queued', 'scheduled', 'allocating', 'running')`
		c.Full++
	} else {
		q = `SELECT ` + snapshotJobColumns + ` FROM jobs j
WHERE j.sched_xid >= pg_snapshot_xmin(?::pg_snapshot) AND NOT pg_visible_in_snapshot(j.sched_xid, ?::pg_snapshot)`
		args = []any{c.seen, c.seen}
		c.Delta++
	}
	c.valid = false // until this load is whole
	r, closeRows, err := query(ctx, db, q, args...)
	if err != nil {
		return fmt.Errorf("models: snapshot jobs: %w", err)
	}
	defer closeRows()
	for r.Next() {
		j, err := scanJob(r)
		if err != nil {
			return err
		}
		c.apply(j)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("models: snapshot jobs: %w", err)
	}
	held, err := liveAllocations(ctx, db)
	if err != nil {
		return err
	}
	if c.order == nil || c.dead > len(c.order)/2 {
		c.sortOrder()
	}
	if n := len(c.jobs) - len(held); n > 0 { // nil when none, as a fresh load
		s.Pending = make([]scheduler.Job, 0, n)
	}
	if len(held) > 0 {
		s.Running = make([]scheduler.Job, 0, len(held))
	}
	for _, j := range c.order {
		if !j.dead {
			addJob(s, prev, types, held, j)
		}
	}
	c.seen, c.xmin, c.passes, c.valid = seen, xmin, passes, true
	return nil
}

// apply folds one changed job row into the cache. The submission order is
// kept without sorting it again: a new job is inserted at its place (near
// the end as a rule), a job changed in place keeps its place, a job no
// longer live is marked dead (and dropped at the next sort).
func (c *SnapshotCache) apply(j snapJob) {
	old := c.jobs[j.job.ID]
	if old != nil && j.live() && old.job.SubmittedAt.Equal(j.job.SubmittedAt) {
		*old = j
		return
	}
	if old != nil { // gone, or moved in the queue: a new entry takes its place
		old.dead = true
		c.dead++
		delete(c.jobs, j.job.ID)
	}
	if !j.live() {
		return
	}
	p := &j
	c.jobs[j.job.ID] = p
	if c.order == nil { // a full load: sorted once at its end
		return
	}
	i, _ := slices.BinarySearchFunc(c.order, p, func(e, t *snapJob) int {
		if submittedBefore(e, t) {
			return -1
		}
		return 1
	})
	c.order = slices.Insert(c.order, i, p)
}

// sortOrder rebuilds the submission order from the live jobs.
func (c *SnapshotCache) sortOrder() {
	c.order = make([]*snapJob, 0, len(c.jobs))
	for _, j := range c.jobs {
		c.order = append(c.order, j)
	}
	slices.SortFunc(c.order, func(a, b *snapJob) int {
		if submittedBefore(a, b) {
			return -1
		}
		if submittedBefore(b, a) {
			return 1
		}
		return 0
	})
	c.dead = 0
}

func submittedBefore(a, b *snapJob) bool {
	if d := a.job.SubmittedAt.Compare(b.job.SubmittedAt); d != 0 {
		return d < 0
	}
	return a.job.ID < b.job.ID
}

// Committed records that the pass which loaded last committed as pass
// number passes, having left the pending jobs with the explanations ex:
// they are what the next pass compares its own against.
func (c *SnapshotCache) Committed(passes int64, ex []scheduler.Explanation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid || passes != c.passes+1 {
		c.valid = false
		return
	}
	c.passes = passes
	for _, e := range ex {
		if j, ok := c.jobs[e.JobID]; ok && j.state == JobQueued && explanationChanged(j.ex, e) {
			// What RecordExplanations wrote; what it left alone stays.
			j.ex = scheduler.Explanation{JobID: e.JobID, Position: e.Position, Code: e.Code, Reason: e.Reason, EstimatedStart: e.EstimatedStart}
		}
	}
}
