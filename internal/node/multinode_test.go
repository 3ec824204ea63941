package node_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// rendezvousEnv makes the test binary the rendezvous program (see
// rendezvous) instead of running tests: the jobs run a copy of it.
const rendezvousEnv = "GPUSCHED_TEST_RENDEZVOUS"

func init() {
	if os.Getenv(rendezvousEnv) != "" {
		os.Exit(rendezvous())
	}
}

// rendezvous is what each part of a multi-node job runs, as
// torch.distributed's rendezvous does: rank 0 listens on MASTER_PORT,
// every other rank connects to MASTER_ADDR:MASTER_PORT and says its rank,
// and rank 0 exits 0 only if it saw WORLD_SIZE ranks (itself included).
func rendezvous() int {
	world, _ := strconv.Atoi(os.Getenv("WORLD_SIZE"))
	rank, _ := strconv.Atoi(os.Getenv("NODE_RANK"))
	addr := net.JoinHostPort(os.Getenv("MASTER_ADDR"), os.Getenv("MASTER_PORT"))
	deadline := time.Now().Add(60 * time.Second)
	if rank != 0 {
		for {
			conn, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				fmt.Fprintf(conn, "%d\n", rank)
				_, _ = io.Copy(io.Discard, conn) // until rank 0 has counted
				conn.Close()
				fmt.Printf("rank %d met rank 0 at %s\n", rank, addr)
				return 0
			}
			if time.Now().After(deadline) {
				fmt.Printf("rank %d could not reach %s: %v\n", rank, addr, err)
				return 1
			}
			<-time.After(100 * time.Millisecond)
		}
	}
	l, err := net.Listen("tcp", ":"+os.Getenv("MASTER_PORT"))
	if err != nil {
		fmt.Println("rank 0 could not listen:", err)
		return 1
	}
	_ = l.(*net.TCPListener).SetDeadline(deadline)
	seen := map[string]bool{"0": true}
	var conns []net.Conn
	for len(seen) < world {
		conn, err := l.Accept()
		if err != nil {
			fmt.Println("rank 0 gave up waiting:", err)
			return 1
		}
		line, _ := bufio.NewReader(conn).ReadString('\n')
		seen[strings.TrimSpace(line)] = true
		conns = append(conns, conn)
	}
	for _, c := range conns {
		c.Close()
	}
	fmt.Printf("rank 0 saw %d of %d ranks\n", len(seen), world)
	return 0
}

// twoNodes is a control plane with two node agents of 8 fake GPUs each,
// which run real processes, reachable at 127.0.0.1.
type twoNodes struct {
	s      *testserver.Server
	user   string
	nodes  [2]*models.Node
	stops  [2]func() // stop each agent
	states [2]string // each agent's state folder
	helper string    // a copy of the test binary every job's user can run
}

func newTwoNodes(t *testing.T) *twoNodes {
	t.Helper()
	s := testserver.New(t)
	s.Deps.Executors[models.ExecutorNode].(*jobs.NodeExecutor).StopGrace = time.Second
	tok, u := s.UserToken(t, models.RoleMember)
	if err := models.SetUnixUser(context.Background(), s.DB.Bun, u.ID, "nobody", time.Now()); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "gpusched-multinode-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &twoNodes{s: s, user: tok, helper: filepath.Join(dir, "rendezvous")}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.helper, b, 0o755); err != nil {
		t.Fatal(err)
	}
	spec, _ := gpu.ParseFakeSpec("1x8:H100-80GB")
	for i, name := range []string{"mn-a", "mn-b"} {
		ntok, n := s.NodeToken(t, name)
		c.nodes[i] = n
		state := filepath.Join(dir, name)
		c.states[i] = state
		a := &node.Agent{Client: apiclient.New(s.URL, ntok), GPUs: gpu.NewFake(t.Name()+name, spec), Hostname: name,
			Address: "127.0.0.1", Version: "test", Logger: s.Logger.With("agent", name), Interval: time.Second, StateDir: state}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { _ = a.Run(ctx); close(done) }()
		var once sync.Once
		c.stops[i] = func() { once.Do(func() { cancel(); <-done }) }
		t.Cleanup(c.stops[i])
		waitFor(t, name+"'s GPUs", func() bool { return liveGPUs(t, s.DB, n.ID) == 8 })
	}
	return c
}

func (c *twoNodes) submit(t *testing.T, command string) int64 {
	t.Helper()
	body := fmt.Sprintf(`{"command": %q, "gpu_count": 16, "allow_multi_node": true, "executor": "node", "workdir": "/"}`, command)
	status, out := c.s.Do(t, "POST", "/api/v1/queue/submit", c.user, body)
	if status != 201 {
		t.Fatalf("submit: %d %s", status, out)
	}
	var j struct{ ID int64 }
	_ = json.Unmarshal(out, &j)
	return j.ID
}

func (c *twoNodes) waitState(t *testing.T, id int64, state string) *models.Job {
	t.Helper()
	var j *models.Job
	var err error
	waitFor(t, fmt.Sprintf("job %d %s", id, state), func() bool {
		j, err = models.GetJob(context.Background(), c.s.DB.Bun, id)
		if err != nil {
			t.Fatal(err)
		}
		return j.State == state
	})
	return j
}

func (c *twoNodes) partLog(t *testing.T, id int64, part int) api.JobLog {
	t.Helper()
	status, out := c.s.Do(t, "GET", fmt.Sprintf("/api/v1/jobs/%d/logs?part=%d", id, part), c.user, "")
	if status != 200 {
		t.Fatalf("logs of part %d: %d %s", part, status, out)
	}
	var l api.JobLog
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// partPID is the process group of part rank of job id, as its agent
// answered the start.
func (c *twoNodes) partPID(t *testing.T, id int64, rank int) int {
	t.Helper()
	var pid int
	waitFor(t, fmt.Sprintf("part %d started", rank), func() bool {
		err := c.s.DB.Bun.NewSelect().Model((*models.NodeCommand)(nil)).ColumnExpr("coalesce((result->>'pid')::int, 0)").
			Where("job_id = ? AND kind = 'start' AND coalesce((payload->'part'->>'rank')::int, 0) = ?", id, rank).
			OrderExpr("id DESC").Limit(1).Scan(context.Background(), &pid)
		return err == nil && pid > 0
	})
	return pid
}

// A 16-GPU job on two nodes of 8 starts one part on each; the parts meet
// at MASTER_ADDR:MASTER_PORT (rank 0 counts WORLD_SIZE ranks), each sees
// its own rank and GPUs, and the job completes with each part's output
// kept apart.
func TestMultiNodeJobPartsMeet(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	cmd := `echo "rank=$NODE_RANK world=$WORLD_SIZE nnodes=$GPUSCHED_NNODES gpn=$GPUSCHED_GPUS_PER_NODE list=$GPUSCHED_NODELIST ` +
		`slurm=$SLURM_NNODES/$SLURM_JOB_NODELIST/$SLURM_NODEID/$SLURM_PROCID/$SLURM_NTASKS/$SLURM_GPUS_ON_NODE cuda=$CUDA_VISIBLE_DEVICES"; ` +
		rendezvousEnv + `=1 exec ` + c.helper
	id := c.submit(t, cmd)
	j := c.waitState(t, id, "completed")
	if j.ExitCode == nil || *j.ExitCode != 0 {
		t.Fatalf("exit code %v, want 0", j.ExitCode)
	}
	tests := map[string]struct {
		part int
		want []string
	}{
		"rank 0": {part: 0, want: []string{"rank=0 world=2 nnodes=2 gpn=8 list=mn-a,mn-b slurm=2/mn-a,mn-b/0/0/2/8 cuda=0,1,2,3,4,5,6,7", "rank 0 saw 2 of 2 ranks"}},
		"rank 1": {part: 1, want: []string{"rank=1 world=2 nnodes=2 gpn=8 list=mn-a,mn-b slurm=2/mn-a,mn-b/1/1/2/8 cuda=0,1,2,3,4,5,6,7", "rank 1 met rank 0 at 127.0.0.1:"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			l := c.partLog(t, id, tc.part)
			for _, w := range tc.want {
				if !strings.Contains(l.Data, w) {
					t.Errorf("part %d's output %q lacks %q", tc.part, l.Data, w)
				}
			}
			if l.Parts != 2 || !l.Done {
				t.Errorf("parts %d done %v, want 2 and done", l.Parts, l.Done)
			}
		})
	}
}

// Killing one part ends the other: the job fails with the killed part's
// exit, and every GPU is released.
func TestMultiNodeJobKilledPartEndsTheOther(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	id := c.submit(t, `echo "part $NODE_RANK up"; sleep 600`)
	c.waitState(t, id, "running")
	pid := c.partPID(t, id, 1)
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	j := c.waitState(t, id, "failed")
	if j.ExitCode == nil || *j.ExitCode != 137 {
		t.Errorf("exit code %v, want 137 (SIGKILL)", j.ExitCode)
	}
	if want := "part 1 of 2 (node mn-b): killed by SIGKILL"; !strings.Contains(j.FailureReason, want) {
		t.Errorf("failure reason %q, want it to say %q", j.FailureReason, want)
	}
	rank0 := c.partPID(t, id, 0)
	waitFor(t, "part 0's process gone", func() bool { return syscall.Kill(rank0, 0) != nil })
	n, err := c.s.DB.Bun.NewSelect().Model((*models.Allocation)(nil)).Where("job_id = ? AND released_at IS NULL", id).Count(context.Background())
	if err != nil || n != 0 {
		t.Fatalf("%d allocations still live (%v)", n, err)
	}
}

// Canceling a multi-node job stops every part; it ends canceled once both
// have ended, and its GPUs are released.
func TestMultiNodeJobCancelStopsEveryPart(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	id := c.submit(t, `trap 'echo "part $NODE_RANK got TERM"; exit 0' TERM; while :; do sleep 0.1; done`)
	c.waitState(t, id, "running")
	pids := []int{c.partPID(t, id, 0), c.partPID(t, id, 1)}
	if status, out := c.s.Do(t, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), c.user, ""); status != 200 {
		t.Fatalf("cancel: %d %s", status, out)
	}
	c.waitState(t, id, "canceled")
	for rank, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("part %d (pid %d) still runs after the job ended", rank, pid)
		}
		waitFor(t, fmt.Sprintf("part %d's output", rank), func() bool {
			return strings.Contains(c.partLog(t, id, rank).Data, fmt.Sprintf("part %d got TERM", rank))
		})
	}
}

// Inside a two-node job, srun runs each node's own tasks and scontrol
// show hostnames expands the job's node list, as a Slurm script uses them.
func TestMultiNodeJobSrunAndScontrol(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	cmd := `srun sh -c 'echo "task $SLURM_PROCID local $SLURM_LOCALID on node $SLURM_NODEID"'; ` +
		`echo "first host $(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)"; echo "hosts $(scontrol show hostnames | tr '\n' ' ')"`
	body := fmt.Sprintf(`{"command": %q, "gpu_count": 16, "allow_multi_node": true, "executor": "node", "workdir": "/", "env": {"SLURM_NTASKS": "4"}}`, cmd)
	status, out := c.s.Do(t, "POST", "/api/v1/queue/submit", c.user, body)
	if status != 201 {
		t.Fatalf("submit: %d %s", status, out)
	}
	var j struct{ ID int64 }
	_ = json.Unmarshal(out, &j)
	c.waitState(t, j.ID, "completed")
	tests := map[string]struct {
		part int
		want []string
	}{
		"node 0": {0, []string{"task 0 local 0 on node 0", "task 1 local 1 on node 0", "first host mn-a\n", "hosts mn-a mn-b \n"}},
		"node 1": {1, []string{"task 2 local 0 on node 1", "task 3 local 1 on node 1", "first host mn-a\n"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			l := c.partLog(t, j.ID, tc.part)
			for _, w := range tc.want {
				if !strings.Contains(l.Data, w) {
					t.Errorf("part %d's output %q lacks %q", tc.part, l.Data, w)
				}
			}
		})
	}
}

// A node that goes down loses a multi-node job at once (no retries left:
// it fails), and the part on the node still up is stopped by its agent.
func TestMultiNodeJobLostNodeStopsTheOther(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	id := c.submit(t, `sleep 600`)
	c.waitState(t, id, "running")
	pid := c.partPID(t, id, 0)
	orphan := c.partPID(t, id, 1)
	t.Cleanup(func() { _ = syscall.Kill(-orphan, syscall.SIGKILL) }) // its agent is gone for good
	c.stops[1]()
	later := *c.s.Deps
	later.Now = func() time.Time { return time.Now().Add(2 * later.Config.NodeDownAfter) }
	if err := jobs.SweepNodes(context.Background(), later); err != nil {
		t.Fatal(err)
	}
	j := c.waitState(t, id, "failed")
	if !strings.Contains(j.FailureReason, "its node went down") {
		t.Errorf("failure reason %q", j.FailureReason)
	}
	waitFor(t, "part 0 stopped on the node still up", func() bool { return syscall.Kill(pid, 0) != nil })
}

// All or none: a part that cannot start (its agent cannot record the run)
// stops the part already started, and the job fails saying which.
func TestMultiNodeJobPartThatCannotStartEndsTheRest(t *testing.T) {
	t.Parallel()
	c := newTwoNodes(t)
	// mn-b can no longer record runs: its state folder is now a file.
	if err := os.RemoveAll(c.states[1]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.states[1], nil, 0o600); err != nil {
		t.Fatal(err)
	}
	id := c.submit(t, `sleep 600`)
	pid := c.partPID(t, id, 0)
	j := c.waitState(t, id, "failed")
	if want := "part 1 of 2 (node mn-b): could not start"; !strings.Contains(j.FailureReason, want) {
		t.Errorf("failure reason %q, want it to say %q", j.FailureReason, want)
	}
	waitFor(t, "part 0 stopped", func() bool { return syscall.Kill(pid, 0) != nil })
}
