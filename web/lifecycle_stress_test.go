package web_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// stressFor is how long the randomized load of TestLifecycleStress runs.
const stressFor = 15 * time.Second

// TestLifecycleStress drives a real server and two node agents (fake GPUs,
// real processes) with a randomized mix, for a bounded time: submissions of
// jobs of every priority under a preemptive policy, cancels, leases taken
// and released, bookings started and ended early, an agent restarted (its
// runs reattached) and a node killed (marked down, its runs lost, then back).
// Once it quiesces: no allocation is held by an ended job, no two
// allocations of one GPU ever overlapped in time, a job canceled with a 200
// ended canceled and got no GPU after its cancel, every job's timeline is
// one chain along the state graph, GPU time summed from the allocation
// intervals is what the usage page counts, and the invariant sweep finds
// nothing (nor did it while the load ran).
func TestLifecycleStress(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	s := testserver.New(t)
	ctx := context.Background()
	cfg, err := models.SchedulerConfig(ctx, s.DB.Bun)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MinRuntime = 0       // preemptible at once
	cfg.LAS.MaxLostShare = 0 // preemption not capped in a young cluster
	if err := models.PutSchedulerConfig(ctx, s.DB.Bun, cfg, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	adminTok, _ := s.UserToken(t, models.RoleAdmin)
	var tokens []string
	for range 3 {
		tok, u := s.UserToken(t, models.RoleMember)
		if err := models.SetUnixUser(ctx, s.DB.Bun, u.ID, jobRunAs(t), time.Now()); err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, tok)
	}
	agents := []*stressAgent{newStressAgent(t, s, "stress-a"), newStressAgent(t, s, "stress-b")}
	for _, a := range agents {
		a.start()
	}
	waitFor(t, "8 GPUs up", func() bool { return upGPUs(t, s) == 8 })

	st := &stressState{s: s, canceled: map[int64]time.Time{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	loop := func(name string, every time.Duration, op func(r *rand.Rand)) {
		r := rand.New(rand.NewPCG(seed, uint64(len(name))*7919+uint64(name[0])))
		wg.Go(func() {
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					op(r)
				}
			}
		})
	}
	priorities := []string{"low", "normal", "high"}
	loop("submit", 120*time.Millisecond, func(r *rand.Rand) {
		body := fmt.Sprintf(`{"command":"sleep %d.%d","gpu_count":%d,"priority":%q,"executor":"node","workdir":"/","max_retries":%d}`,
			r.IntN(2), r.IntN(10), 1+r.IntN(2), priorities[r.IntN(3)], r.IntN(2))
		st.submit(tokens[r.IntN(len(tokens))], "/api/v1/queue/submit", body, http.StatusCreated)
	})
	loop("lease", 400*time.Millisecond, func(r *rand.Rand) {
		st.submit(tokens[r.IntN(len(tokens))], "/api/v1/cluster/gpu-allocate", `{"job_id":"stress","gpu_count":1,"timeout_s":0}`, http.StatusAccepted)
	})
	loop("release", 500*time.Millisecond, func(r *rand.Rand) {
		if id, tok, ok := st.pick(r, true); ok {
			_, _, _ = st.call("POST", "/api/v1/cluster/gpu-release", tok, fmt.Sprintf(`{"job_id":%d}`, id))
		}
	})
	loop("cancel", 300*time.Millisecond, func(r *rand.Rand) {
		if id, tok, ok := st.pick(r, false); ok {
			if code, _, err := st.call("DELETE", fmt.Sprintf("/api/v1/queue/%d", id), tok, ""); err == nil && code == 200 {
				st.mu.Lock()
				st.canceled[id] = time.Now()
				st.mu.Unlock()
			}
		}
	})
	loop("book", 1500*time.Millisecond, func(r *rand.Rand) {
		tok := tokens[r.IntN(len(tokens))]
		now := time.Now().UTC()
		body := fmt.Sprintf(`{"gpu_count":1,"starts_at":%q,"ends_at":%q}`, now.Format(time.RFC3339Nano), now.Add(4*time.Second).Format(time.RFC3339Nano))
		code, out, err := st.call("POST", "/api/v1/bookings", tok, body)
		if err != nil || code != http.StatusCreated || r.IntN(2) == 0 {
			return
		}
		var b struct{ ID int64 }
		if json.Unmarshal(out, &b) == nil {
			wg.Go(func() {
				select {
				case <-stop:
				case <-time.After(time.Second):
				}
				_, _, _ = st.call("POST", fmt.Sprintf("/api/v1/bookings/%d/end", b.ID), tok, "")
			})
		}
	})
	loop("sweep", 700*time.Millisecond, func(*rand.Rand) { st.sweep(t) })
	loop("watch", 50*time.Millisecond, func(*rand.Rand) {
		var n int
		if err := s.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT gpu_id FROM allocations WHERE released_at IS NULL
			GROUP BY gpu_id HAVING count(*) > 1) d`).Scan(&n); err == nil && n > 0 {
			st.mu.Lock()
			st.doubles++
			st.mu.Unlock()
		}
	})
	// The chaos: agent a restarts (its runs are reattached); node b dies,
	// is marked down (its runs lost), and comes back.
	wg.Go(func() {
		sleepOr(stop, stressFor/4)
		agents[0].stop()
		sleepOr(stop, 500*time.Millisecond)
		agents[0].start()
		sleepOr(stop, stressFor/4)
		agents[1].stop()
		sleepOr(stop, 4*time.Second)
		d := *s.Deps // the liveness sweep, with a window b's silence is past
		d.Config.NodeDownAfter = 3 * time.Second
		if err := jobs.SweepNodes(ctx, d); err != nil {
			t.Errorf("node sweep: %v", err)
		}
		sleepOr(stop, time.Second)
		agents[1].start()
	})
	<-time.After(stressFor) // the load's length
	close(stop)
	wg.Wait()

	// Quiesce: everything still live is canceled, and every run ends.
	for _, a := range agents {
		a.start() // no-op when running
	}
	var live []int64
	if err := s.DB.Bun.NewRaw(`SELECT id FROM jobs WHERE state IN ('queued', 'scheduled', 'allocating', 'running')`).Scan(ctx, &live); err != nil && !isNoRows(err) {
		t.Fatal(err)
	}
	for _, id := range live {
		code, out, err := st.call("DELETE", fmt.Sprintf("/api/v1/queue/%d", id), adminTok, "")
		if err != nil || (code != 200 && code != 409) {
			t.Fatalf("cancel %d at the end: %d %s %v", id, code, out, err)
		}
	}
	waitLong(t, "every job ended", 90*time.Second, func() bool {
		var n int
		_ = s.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE state IN ('queued', 'scheduled', 'allocating', 'running')`).Scan(&n)
		return n == 0
	})
	st.check(t)
}

// stressState is what the stress test's load recorded.
type stressState struct {
	s  *testserver.Server
	mu sync.Mutex
	// jobs and leases submitted, with their owner's token
	jobs, leases map[int64]string
	canceled     map[int64]time.Time // answered 200 at (after) this time
	findings     int
	sweeps       int
	doubles      int // samples that saw a GPU with two live allocations
}

func (st *stressState) call(method, path, token, body string) (int, []byte, error) {
	req, err := http.NewRequest(method, st.s.URL+path, bytes.NewReader([]byte(body)))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := st.s.Client().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		return resp.StatusCode, out, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, out)
	}
	return resp.StatusCode, out, err
}

func (st *stressState) submit(token, path, body string, want int) {
	code, out, err := st.call("POST", path, token, body)
	if err != nil || code != want {
		return // refused (quota, a booking's limit): not recorded
	}
	var j struct{ ID int64 }
	if json.Unmarshal(out, &j) != nil || j.ID == 0 {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.jobs == nil {
		st.jobs, st.leases = map[int64]string{}, map[int64]string{}
	}
	st.jobs[j.ID] = token
	if want == http.StatusAccepted {
		st.leases[j.ID] = token
	}
}

// pick returns a random submitted job (a lease with leases) and its owner's token.
func (st *stressState) pick(r *rand.Rand, leases bool) (int64, string, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	from := st.jobs
	if leases {
		from = st.leases
	}
	if len(from) == 0 {
		return 0, "", false
	}
	n := r.IntN(len(from))
	for id, tok := range from {
		if n == 0 {
			return id, tok, true
		}
		n--
	}
	return 0, "", false
}

// sweep runs the invariant sweep while the load runs.
func (st *stressState) sweep(t *testing.T) {
	found, err := jobs.SweepInvariants(context.Background(), *st.s.Deps)
	if err != nil {
		t.Errorf("invariant sweep: %v", err)
		return
	}
	st.mu.Lock()
	st.sweeps++
	st.findings += len(found)
	st.mu.Unlock()
	for _, f := range found {
		t.Errorf("invariant sweep found %s: %s", f.Kind, f.Detail)
	}
}

// check asserts the invariants once everything has ended.
func (st *stressState) check(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	db := st.s.DB
	var held int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM allocations WHERE released_at IS NULL`).Scan(&held); err != nil || held != 0 {
		t.Errorf("%d allocations still live once every job ended (%v)", held, err)
	}
	// The recorded times are each transaction's clock when it began its
	// work, not its commit: a release and the next placement racing may
	// overlap by the span of a transaction (live, they never did: the
	// watch and the unique index say so), never by more.
	var overlaps []string
	if err := db.Bun.NewRaw(`SELECT format('GPU %s: job %s [%s, %s) and job %s [%s, %s)', a.gpu_id, a.job_id, a.created_at, a.released_at,
			b.job_id, b.created_at, b.released_at)
		FROM allocations a JOIN allocations b ON a.gpu_id = b.gpu_id AND a.id < b.id
		WHERE a.created_at + interval '1 second' < coalesce(b.released_at, 'infinity')
		  AND b.created_at + interval '1 second' < coalesce(a.released_at, 'infinity')`).Scan(ctx, &overlaps); err != nil && !isNoRows(err) {
		t.Fatal(err)
	}
	for _, o := range overlaps {
		t.Errorf("two allocations of one GPU overlap: %s", o)
	}
	if st.doubles > 0 {
		t.Errorf("%d samples saw a GPU with two live allocations", st.doubles)
	}
	st.mu.Lock()
	canceled := st.canceled
	n := len(st.jobs)
	st.mu.Unlock()
	for id, at := range canceled {
		j, err := models.GetJob(ctx, db.Bun, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State != models.JobCanceled {
			t.Errorf("job %d was canceled (answered 200) but ended %s", id, j.State)
		}
		var later int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM allocations WHERE job_id = $1 AND created_at > $2`, id, at).Scan(&later); err != nil || later > 0 {
			t.Errorf("job %d got %d allocations after its cancel (%v)", id, later, err)
		}
	}
	var ids []int64
	if err := db.Bun.NewRaw(`SELECT id FROM jobs ORDER BY id`).Scan(ctx, &ids); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		checkTimeline(t, db, id)
	}
	// GPU time from the allocation intervals is what the usage page counts.
	now := time.Now()
	var sum float64
	if err := db.Pool.QueryRow(ctx, `SELECT coalesce(sum(extract(epoch FROM released_at - created_at)), 0) / 3600 FROM allocations`).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	hours, err := models.GPUHoursOver(ctx, db.Bun, models.NewUsageRange(now.Add(time.Hour), 24*time.Hour, 24), now, 0)
	if err != nil {
		t.Fatal(err)
	}
	var page float64
	for _, u := range hours.UserTotals {
		page += u.Hours
	}
	if d := page - sum; d > 1e-6 || d < -1e-6 {
		t.Errorf("usage page counts %.6f GPU-h, the allocation intervals sum to %.6f", page, sum)
	}
	found, err := jobs.SweepInvariants(ctx, *st.s.Deps)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := models.InvariantFindingCounts(ctx, db.Bun)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, c := range counts {
		total += c
	}
	if len(found) > 0 || total > 0 || st.findings > 0 {
		t.Errorf("the invariant sweep found %d problems at the end, %d recorded in all: %v", len(found), total, found)
	}
	// The load did what it is for.
	events := map[string]int{}
	var rows []struct {
		State string `bun:"to_state"`
		N     int    `bun:"n"`
	}
	if err := db.Bun.NewRaw(`SELECT to_state, count(*) AS n FROM job_events GROUP BY to_state`).Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		events[r.State] = r.N
	}
	var lost, bookings, released int
	_ = db.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE end_cause = 'lost' OR release_reason LIKE '%node went down%'),
		count(*) FILTER (WHERE end_cause = 'released') FROM allocations`).Scan(&lost, &released)
	_ = db.Pool.QueryRow(ctx, `SELECT count(*) FROM bookings`).Scan(&bookings)
	t.Logf("%d jobs, %d canceled with a 200, %d bookings, %d sweeps; moves %v; allocations: %d lost with their node, %d released leases; %.3f GPU-h",
		n, len(canceled), bookings, st.sweeps, events, lost, released, sum)
	if events[models.JobCompleted] == 0 || events[models.JobCanceled] == 0 || events[models.JobRunning] == 0 {
		t.Errorf("the load ran nothing to the end: %v", events)
	}
}

// checkTimeline fails if a job's events are not one chain along the state
// graph from its submission to its state, or move on after it ended.
func checkTimeline(t *testing.T, db *models.DB, id int64) {
	t.Helper()
	ctx := context.Background()
	j, err := models.GetJob(ctx, db.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := models.JobEvents(ctx, db.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	state := ""
	for i, e := range evs {
		from := ""
		if e.FromState != nil {
			from = *e.FromState
		}
		if from != state || (i > 0 && !models.CanMove(from, e.ToState)) || models.IsTerminal(state) {
			t.Errorf("job %d: event %d moves %q→%s after %q", id, i, from, e.ToState, state)
			return
		}
		state = e.ToState
	}
	if state != j.State {
		t.Errorf("job %d is %s, its timeline ends %s", id, j.State, state)
	}
}

// stressAgent is a node agent that can be stopped and started again on the
// same state folder (a restart: its runs are reattached).
type stressAgent struct {
	t      *testing.T
	s      *testserver.Server
	name   string
	token  string
	spec   gpu.FakeSpec
	dir    string
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

func newStressAgent(t *testing.T, s *testserver.Server, name string) *stressAgent {
	tok, _ := s.NodeToken(t, name)
	spec, err := gpu.ParseFakeSpec("1x4:H100-80GB")
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: jobs running as nobody must reach their exit files.
	dir, err := os.MkdirTemp("", "gpusched-stress-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	a := &stressAgent{t: t, s: s, name: name, token: tok, spec: spec, dir: dir}
	t.Cleanup(func() { a.stop(); _ = os.RemoveAll(dir) })
	return a
}

func (a *stressAgent) start() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		return
	}
	ag := &node.Agent{Client: apiclient.New(a.s.URL, a.token), GPUs: gpu.NewFake(a.name, a.spec), Hostname: a.name, Version: "test",
		Logger: a.s.Logger.With("agent", a.name), Interval: 500 * time.Millisecond, StateDir: a.dir + "/state"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = ag.Run(ctx); close(done) }()
	a.cancel, a.done = cancel, done
}

func (a *stressAgent) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel == nil {
		return
	}
	a.cancel()
	<-a.done
	a.cancel = nil
}

// jobRunAs is who the agents run jobs as: nobody when the tests run as
// root, else the tests' own user.
func jobRunAs(t testing.TB) string {
	if os.Geteuid() == 0 {
		return "nobody"
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	t.Fatal("no user name to run jobs as")
	return ""
}

func upGPUs(t *testing.T, s *testserver.Server) int {
	var n int
	if err := s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM gpus g JOIN nodes n ON n.id = g.node_id
		WHERE g.present AND n.status = 'up'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// sleepOr waits d, or less if stop closes.
func sleepOr(stop <-chan struct{}, d time.Duration) {
	select {
	case <-stop:
	case <-time.After(d):
	}
}

// waitLong polls cond until it holds or limit passes.
func waitLong(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-time.After(50 * time.Millisecond)
	}
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
