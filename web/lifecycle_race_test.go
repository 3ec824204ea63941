package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Races between a scheduling pass and a person ending a job, made
// deterministic: the test holds the job's row lock in a transaction of its
// own, starts the two operations in a chosen order, waits (on pg_locks)
// until both wait for that lock, and lets go. PostgreSQL then grants the
// row to the waiters in the order they queued. Whatever the order, a job
// that ended holds no GPU, and what the person asked sticks.
func TestEndingRacesAPass(t *testing.T) {
	t.Parallel()
	type op struct {
		name string
		// submit creates the job to race on and returns its id.
		submit func(r *raceRig, t *testing.T) int64
		// end is the person's (or agent's) request; it answers status.
		end func(r *raceRig, t *testing.T, id int64) int
		// want is the job's end state.
		want   string
		status int
	}
	ops := []op{
		{"cancel a node job", (*raceRig).submitNodeJob, (*raceRig).cancel, models.JobCanceled, 200},
		{"cancel a lease", (*raceRig).submitLease, (*raceRig).cancel, models.JobCanceled, 200},
		{"release a lease", (*raceRig).submitLease, (*raceRig).release, "", 200},
		{"end a node lease", (*raceRig).submitNodeLease, (*raceRig).endNodeLease, "", 204},
	}
	for _, o := range ops {
		for _, passFirst := range []bool{true, false} {
			name := o.name + ", pass queued first"
			if !passFirst {
				name = o.name + ", pass queued second"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				r := newRaceRig(t)
				id := o.submit(r, t)
				release := r.holdJob(t, id)
				var wg sync.WaitGroup
				var status int
				pass := func() {
					wg.Go(func() {
						if _, err := jobs.RunPass(context.Background(), *r.s.Deps, 0, "race"); err != nil {
							t.Errorf("pass: %v", err)
						}
					})
				}
				end := func() { wg.Go(func() { status = o.end(r, t, id) }) }
				if passFirst {
					pass()
					r.waitLockWaiters(t, 1)
					end()
				} else {
					end()
					r.waitLockWaiters(t, 1)
					pass()
				}
				r.waitLockWaiters(t, 2)
				release()
				wg.Wait()
				if status != o.status {
					t.Fatalf("ending answered %d, want %d", status, o.status)
				}
				j, err := models.GetJob(context.Background(), r.s.DB.Bun, id)
				if err != nil {
					t.Fatal(err)
				}
				if !models.IsTerminal(j.State) {
					t.Fatalf("job is %s after it was ended", j.State)
				}
				if o.want != "" && j.State != o.want {
					t.Fatalf("job ended %s, want %s", j.State, o.want)
				}
				r.assertNoHeldGPUsOfEnded(t)
				// A later pass never brings it back.
				if _, err := jobs.RunPass(context.Background(), *r.s.Deps, 0, "after"); err != nil {
					t.Fatal(err)
				}
				if j2, _ := models.GetJob(context.Background(), r.s.DB.Bun, id); j2.State != j.State {
					t.Fatalf("job moved from %s to %s after it ended", j.State, j2.State)
				}
				r.assertNoHeldGPUsOfEnded(t)
			})
		}
	}
}

// raceRig is a server whose background work is stopped (the test runs every
// pass), a one-GPU node, and a member with a token.
type raceRig struct {
	s       *testserver.Server
	token   string
	user    *models.User
	node    *models.Node
	nodeTok string
}

func newRaceRig(t *testing.T) *raceRig {
	t.Helper()
	s := testserver.NewWith(t, testserver.Options{Manual: true})
	tok, u := s.UserToken(t, models.RoleMember)
	nodeTok, node := s.NodeToken(t, fmt.Sprintf("race-%d", u.ID))
	if st, body := s.Do(t, "POST", "/api/v1/nodes/register", nodeTok, registerBodyFor(node.Name, 1)); st != 200 {
		t.Fatalf("register: %d %s", st, body)
	}
	unix := fmt.Sprintf("unix%d", u.ID)
	if err := models.SetUnixUser(context.Background(), s.DB.Bun, u.ID, unix, time.Now()); err != nil {
		t.Fatal(err)
	}
	return &raceRig{s: s, token: tok, user: u, node: node, nodeTok: nodeTok}
}

func (r *raceRig) submitNodeJob(t *testing.T) int64 {
	t.Helper()
	return r.submitted(t, "POST", "/api/v1/queue/submit", r.token, `{"command":"sleep 60","gpu_count":1,"executor":"node"}`, 201)
}

func (r *raceRig) submitLease(t *testing.T) int64 {
	t.Helper()
	return r.submitted(t, "POST", "/api/v1/cluster/gpu-allocate", r.token, `{"job_id":"race","gpu_count":1,"timeout_s":0}`, 202)
}

func (r *raceRig) submitNodeLease(t *testing.T) int64 {
	t.Helper()
	body := fmt.Sprintf(`{"pid":4242,"unix_user":"unix%d","gpu_count":1}`, r.user.ID)
	st, b := r.s.Do(t, "POST", fmt.Sprintf("/api/v1/nodes/%d/leases", r.node.ID), r.nodeTok, body)
	if st != 201 && st != 200 {
		t.Fatalf("node lease: %d %s", st, b)
	}
	var out struct {
		JobID int64 `json:"job_id"`
	}
	mustJSON(t, b, &out)
	return out.JobID
}

func (r *raceRig) submitted(t *testing.T, method, path, token, body string, want int) int64 {
	t.Helper()
	st, b := r.s.Do(t, method, path, token, body)
	if st != want {
		t.Fatalf("%s %s: %d %s", method, path, st, b)
	}
	var out struct {
		ID int64 `json:"id"`
	}
	mustJSON(t, b, &out)
	return out.ID
}

func (r *raceRig) cancel(t *testing.T, id int64) int {
	st, _ := r.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), r.token, "")
	return st
}

func (r *raceRig) release(t *testing.T, id int64) int {
	st, _ := r.s.Do(t, "POST", "/api/v1/cluster/gpu-release", r.token, fmt.Sprintf(`{"job_id":%d}`, id))
	return st
}

func (r *raceRig) endNodeLease(t *testing.T, id int64) int {
	st, _ := r.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/nodes/%d/leases/%d?reason=exited", r.node.ID, id), r.nodeTok, "")
	return st
}

// holdJob locks job id's row in a transaction of the test's own and
// returns the function that commits it.
func (r *raceRig) holdJob(t *testing.T, id int64) func() {
	t.Helper()
	ctx := context.Background()
	tx, err := r.s.DB.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE`, id); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	done := func() {
		once.Do(func() {
			if err := tx.Commit(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(done)
	return done
}

// waitLockWaiters waits until at least n backends of this database wait
// for a lock (a row lock is a wait on the holder's transaction id, which
// pg_locks does not tie to a database: pg_stat_activity does).
func (r *raceRig) waitLockWaiters(t *testing.T, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d lock waiters", n), func() bool {
		var got int
		err := r.s.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&got)
		return err == nil && got >= n
	})
}

// assertNoHeldGPUsOfEnded fails if an ended (or queued) job holds a GPU.
func (r *raceRig) assertNoHeldGPUsOfEnded(t *testing.T) {
	t.Helper()
	var bad []string
	err := r.s.DB.Bun.NewRaw(`SELECT format('job %s (%s) holds GPU %s', j.id, j.state, a.gpu_id) FROM allocations a JOIN jobs j ON j.id = a.job_id
		WHERE a.released_at IS NULL AND j.state NOT IN ('scheduled', 'allocating', 'running')`).Scan(context.Background(), &bad)
	if err != nil && err.Error() != "sql: no rows in result set" {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("GPUs held by jobs that do not run: %v", bad)
	}
}

// A preemption and a user's cancel (or the idle policy's reclaim) both in
// flight: the stronger request decides the end whichever way the node agent
// reports the stop, and the job never runs again.
func TestStopsInFlightEndByPrecedence(t *testing.T) {
	t.Parallel()
	type second struct {
		name  string
		ask   func(r *raceRig, t *testing.T, id int64)
		cause string
	}
	seconds := []second{
		{"cancel", func(r *raceRig, t *testing.T, id int64) {
			if st := r.cancel(t, id); st != 200 {
				t.Fatalf("cancel answered %d", st)
			}
		}, models.CauseCanceled},
		{"reclaim", func(r *raceRig, t *testing.T, id int64) {
			err := r.s.DB.InTx(context.Background(), func(ctx context.Context, tx *models.Tx) error {
				j, err := r.s.Deps.Lifecycle.Lock(ctx, tx, id)
				if err != nil {
					return err
				}
				return r.s.Deps.Lifecycle.RequestStop(ctx, tx, j, models.StopRequest{Kind: models.StopReclaim, Reason: "reclaimed: idle for 1h"}, time.Now())
			})
			if err != nil {
				t.Fatal(err)
			}
		}, models.CauseReclaimed},
	}
	reports := map[string]func(a *fakeAgent, t *testing.T, start, stop agentCommand){
		"exit after SIGTERM": func(a *fakeAgent, t *testing.T, start, stop agentCommand) {
			a.answer(t, stop, `{"ok":true,"running":true}`)
			a.exit(t, start, `{"exit_code":143,"signal":"SIGTERM"}`)
		},
		"stop finds no process": func(a *fakeAgent, t *testing.T, start, stop agentCommand) {
			a.answer(t, stop, `{"ok":true,"running":false}`)
		},
	}
	for _, sec := range seconds {
		for rname, report := range reports {
			t.Run(sec.name+", "+rname, func(t *testing.T) {
				t.Parallel()
				r := newRaceRig(t)
				ctx := context.Background()
				cfg, err := models.SchedulerConfig(ctx, r.s.DB.Bun)
				if err != nil {
					t.Fatal(err)
				}
				cfg.MinRuntime = 0       // preemptible at once
				cfg.LAS.MaxLostShare = 0 // a young cluster's GPU time lost is not capped
				if err := models.PutSchedulerConfig(ctx, r.s.DB.Bun, cfg, nil, time.Now()); err != nil {
					t.Fatal(err)
				}
				victim := r.submitted(t, "POST", "/api/v1/queue/submit", r.token, `{"command":"sleep 600","gpu_count":1,"priority":"low"}`, 201)
				r.pass(t)
				agent := &fakeAgent{t: t, s: r.s, node: r.node, token: r.nodeTok}
				start := agent.take(t, "start", victim)
				agent.answer(t, start, `{"ok":true,"pid":100,"running":true}`)
				r.wantState(t, victim, models.JobRunning)

				r.submitted(t, "POST", "/api/v1/queue/submit", r.token, `{"command":"sleep 1","gpu_count":1,"priority":"high"}`, 201)
				r.pass(t) // the victim is asked to stop for the high-priority job
				stop := agent.take(t, "stop", victim)
				sec.ask(r, t, victim)
				r.pass(t) // the stop in flight is not asked again
				if n := len(agent.pending(t)); n != 1 {
					t.Fatalf("%d commands pending, want the one stop", n)
				}
				report(agent, t, start, stop)
				r.pass(t)
				r.pass(t)
				r.wantState(t, victim, models.JobCanceled)
				var causes []string
				if err := r.s.DB.Bun.NewSelect().Table("allocations").Column("end_cause").Where("job_id = ?", victim).Scan(ctx, &causes); err != nil {
					t.Fatal(err)
				}
				if len(causes) != 1 || causes[0] != sec.cause {
					t.Fatalf("allocation causes %v, want [%s]", causes, sec.cause)
				}
				r.assertNoHeldGPUsOfEnded(t)
			})
		}
	}
}

func (r *raceRig) pass(t *testing.T) {
	t.Helper()
	if _, err := jobs.RunPass(context.Background(), *r.s.Deps, 0, "test"); err != nil {
		t.Fatal(err)
	}
}

func (r *raceRig) wantState(t *testing.T, id int64, want string) {
	t.Helper()
	j, err := models.GetJob(context.Background(), r.s.DB.Bun, id)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != want {
		t.Fatalf("job %d is %s, want %s", id, j.State, want)
	}
}

// fakeAgent speaks the node agent's command protocol by hand, so a test
// decides when each command is answered.
type fakeAgent struct {
	t     *testing.T
	s     *testserver.Server
	node  *models.Node
	token string
}

type agentCommand struct {
	ID    int64  `json:"id"`
	Kind  string `json:"kind"`
	JobID int64  `json:"job_id"`
}

// pending returns the node's unanswered commands.
func (a *fakeAgent) pending(t *testing.T) []agentCommand {
	t.Helper()
	st, b := a.s.Do(t, "GET", fmt.Sprintf("/api/v1/nodes/%d/commands?wait=0", a.node.ID), a.token, "")
	if st != 200 {
		t.Fatalf("commands: %d %s", st, b)
	}
	var out struct {
		Commands []agentCommand `json:"commands"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out.Commands
}

// take returns the first pending command of kind for job.
func (a *fakeAgent) take(t *testing.T, kind string, job int64) agentCommand {
	t.Helper()
	for _, c := range a.pending(t) {
		if c.Kind == kind && c.JobID == job {
			return c
		}
	}
	t.Fatalf("no pending %s command for job %d", kind, job)
	return agentCommand{}
}

func (a *fakeAgent) answer(t *testing.T, c agentCommand, result string) {
	t.Helper()
	st, b := a.s.Do(t, "POST", fmt.Sprintf("/api/v1/nodes/%d/commands/%d/result", a.node.ID, c.ID), a.token, result)
	if st != http.StatusNoContent {
		t.Fatalf("answer %s %d: %d %s", c.Kind, c.ID, st, b)
	}
}

func (a *fakeAgent) exit(t *testing.T, start agentCommand, exit string) {
	t.Helper()
	st, b := a.s.Do(t, "POST", fmt.Sprintf("/api/v1/nodes/%d/commands/%d/exit", a.node.ID, start.ID), a.token, exit)
	if st != http.StatusNoContent {
		t.Fatalf("exit of %d: %d %s", start.ID, st, b)
	}
}
