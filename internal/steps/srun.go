package steps

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// runSrun runs a step of ntasks tasks on the job's first nodes nodes: this
// node's tasks here, the others' through the coordinator, whose output
// lands in this srun's own (the batch script's -o file). It exits with the
// first failing task's status (0 when all succeed). SIGTERM or SIGINT sent
// to srun alone reaches every task of the step as SIGTERM (the job's stop
// reaches them itself), and srun goes on relaying until they have ended,
// so what they write as they stop is kept; an srun killed outright takes
// the other nodes' tasks along.
func runSrun(cfg config, ntasksArg, nodesArg string, argv []string) int {
	ntasks, err1 := strconv.Atoi(ntasksArg)
	nodes, err2 := strconv.Atoi(nodesArg)
	if err1 != nil || err2 != nil || nodes < 2 {
		fmt.Fprintf(os.Stderr, "srun: a step of %q tasks on %q nodes\n", ntasksArg, nodesArg)
		return 1
	}
	if cfg.nodes > 0 && nodes > cfg.nodes {
		fmt.Fprintf(os.Stderr, "srun: error: %d nodes asked, the job has %d\n", nodes, cfg.nodes)
		return 1
	}
	tasks := spread(ntasks, nodes)
	total := 0
	for _, n := range tasks {
		total += n
	}
	names := strings.Split(os.Getenv("SLURM_JOB_NODELIST"), ",")
	list := ""
	if len(names) >= nodes {
		list = strings.Join(names[:nodes], ",")
	}
	p, err := dial(cfg, "srun", 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "srun: error: %v\n", err)
		return 1
	}
	defer p.conn.Close()
	dir, _ := os.Getwd()
	env := environ()
	if err := p.send(msg{Kind: "step", Argv: argv, Env: env, Tasks: tasks, NodeList: list, Dir: dir}); err != nil {
		fmt.Fprintf(os.Stderr, "srun: error: %v\n", err)
		return 1
	}
	m, err := p.recv()
	if err != nil || m.Kind != "started" {
		why := m.Text
		if err != nil {
			why = fmt.Sprintf("the coordinator did not answer: %v", err)
		}
		fmt.Fprintf(os.Stderr, "srun: error: the step did not start: %s\n", why)
		return 1
	}
	stepEnv(env, m.Step, total, tasks, list)
	env["SLURM_NODEID"] = "0"
	results := make(chan int, total)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() { // as Slurm's srun: a signal goes on to every task (see forwardSignal)
		for range sigs {
			_ = p.send(msg{Kind: "signal"})
		}
	}()
	var local []*exec.Cmd
	for i := range tasks[0] {
		cmd, err := startTask(argv, taskEnv(env, i, i), dir, os.Stdin, os.Stdout, os.Stderr)
		if err != nil {
			fmt.Fprintf(os.Stderr, "srun: error: task %d: %v\n", i, err)
			results <- 127
			continue
		}
		local = append(local, cmd)
		go func() { results <- taskEnded(i, exitStatus(cmd, cmd.Wait())) }()
	}
	signalLocal := func() {
		for _, cmd := range local {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	go relayRemote(p, tasks, results, signalLocal)
	status := 0
	for range total {
		if code := <-results; code != 0 && status == 0 {
			status = code
		}
	}
	return status
}

// relayRemote writes the other nodes' output to this srun's and sends
// their tasks' statuses to results; a node lost (or the coordinator)
// fails its tasks not yet ended.
func relayRemote(p *peer, tasks []int, results chan<- int, signalLocal func()) {
	left := map[int]int{}
	for n := 1; n < len(tasks); n++ {
		left[n] = tasks[n]
	}
	var mu sync.Mutex
	fail := func(n int, why string) {
		if left[n] > 0 {
			fmt.Fprintf(os.Stderr, "srun: error: node %d: %s\n", n, why)
		}
		for ; left[n] > 0; left[n]-- {
			results <- 1
		}
		delete(left, n)
	}
	for len(left) > 0 {
		m, err := p.recv()
		if err != nil {
			for n := range left {
				fail(n, "lost the batch step's coordinator")
			}
			return
		}
		switch m.Kind {
		case "out":
			mu.Lock()
			if m.Stream == 2 {
				_, _ = os.Stderr.Write(m.Data)
			} else {
				_, _ = os.Stdout.Write(m.Data)
			}
			mu.Unlock()
		case "exit":
			if left[m.Node] > 0 {
				left[m.Node]--
				results <- taskEnded(m.Task, m.Code)
			}
		case "end":
			fail(m.Node, "ended before all its tasks reported")
		case "lost":
			fail(m.Node, "left the job's steps")
		case "signal":
			signalLocal()
		}
	}
}

// taskEnded says, as Slurm's srun does, that a task failed, and returns
// its status.
func taskEnded(task, code int) int {
	if code != 0 {
		fmt.Fprintf(os.Stderr, "srun: error: task %d: Exited with exit code %d\n", task, code)
	}
	return code
}
