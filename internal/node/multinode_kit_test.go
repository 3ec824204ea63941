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
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/steps"
	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// rendezvousEnv makes the test binary the rendezvous program (see
// rendezvous) instead of running tests: the jobs run a copy of it.
const rendezvousEnv = "GPUSCHED_TEST_RENDEZVOUS"

func init() {
	if steps.IsStep(os.Args[0]) { // a multi-node batch job's steps, through the helper
		os.Exit(steps.Main(os.Args[1:]))
	}
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
			Address: "127.0.0.1", Version: "test", Logger: s.Logger.With("agent", name), Interval: time.Second, StateDir: state, StepProgram: c.helper}
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
