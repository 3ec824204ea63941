package steps

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// worker runs, on a node other than the first, the tasks the steps of the
// batch script ask of it.
type worker struct {
	cfg  config
	p    *peer
	base map[string]string // this node's job environment
	mu   sync.Mutex
	runs map[int]map[int]*exec.Cmd // step → task id → its process
	wg   sync.WaitGroup
}

// runWorker connects to the coordinator (trying until cfg.wait has
// passed), runs the tasks it is given, and exits 0 when the batch script
// has ended, 1 when it loses the coordinator, 128+n on signal n (once its
// tasks, which got the signal too, have ended).
func runWorker(cfg config) int {
	p, err := dial(cfg, "worker", cfg.node)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: node %d: %v\n", Name, cfg.node, err)
		return 1
	}
	w := &worker{cfg: cfg, p: p, base: environ(), runs: map[int]map[int]*exec.Cmd{}}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	msgs, lost := make(chan msg), make(chan error, 1)
	go func() {
		for {
			m, err := p.recv()
			if err != nil {
				lost <- err
				return
			}
			msgs <- m
		}
	}()
	for {
		select {
		case m := <-msgs:
			switch m.Kind {
			case "launch":
				w.launch(m)
			case "kill":
				w.kill(m.Step)
			case "signal":
				w.signal(m.Step)
			case "done":
				w.kill(-1)
				w.wg.Wait()
				return 0
			}
		case err := <-lost:
			fmt.Fprintf(os.Stderr, "%s: node %d lost the batch step's coordinator: %v\n", Name, cfg.node, err)
			w.kill(-1)
			w.wg.Wait()
			return 1
		case s := <-sigs:
			w.wg.Wait()
			return 128 + int(s.(syscall.Signal))
		}
	}
}

// dial connects to the coordinator as role, trying until cfg.wait has
// passed; a refused secret is final.
func dial(cfg config, role string, node int) (*peer, error) {
	deadline := time.Now().Add(cfg.wait)
	for {
		conn, err := net.DialTimeout("tcp", cfg.addr, 5*time.Second)
		if err == nil {
			var p *peer
			if p, err = greet(conn, cfg.secret, role, node); err == nil {
				return p, nil
			}
			conn.Close()
			if errors.Is(err, errRefused) {
				return nil, err
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("could not reach the batch step's coordinator at %s within %s: %w", cfg.addr, cfg.wait, err)
		}
		time.Sleep(200 * time.Millisecond) // the coordinator is starting on the first node
	}
}

// launch starts this node's tasks of step m, each reporting its output
// and end, and the node's end of the step after its last task.
func (w *worker) launch(m msg) {
	node := w.cfg.node
	if node >= len(m.Tasks) {
		_ = w.p.send(msg{Kind: "end", Step: m.Step})
		return
	}
	env := maps.Clone(w.base)
	for _, k := range m.Unset {
		delete(env, k)
	}
	maps.Copy(env, m.Set)
	if own := filepath.Dir(w.cfg.bin); m.Bin != "" && own != "." {
		env["PATH"] = strings.ReplaceAll(env["PATH"], m.Bin, own)
	}
	total := 0
	for _, n := range m.Tasks {
		total += n
	}
	stepEnv(env, m.Step, total, m.Tasks, m.NodeList)
	env["SLURM_NODEID"] = strconv.Itoa(node)
	first := firstTasks(m.Tasks)[node]
	left := m.Tasks[node]
	var mu sync.Mutex
	w.mu.Lock()
	w.runs[m.Step] = map[int]*exec.Cmd{}
	w.mu.Unlock()
	for i := range m.Tasks[node] {
		id := first + i
		out := &lineWriter{emit: func(b []byte) { _ = w.p.send(msg{Kind: "out", Step: m.Step, Stream: 1, Data: b}) }}
		errw := &lineWriter{emit: func(b []byte) { _ = w.p.send(msg{Kind: "out", Step: m.Step, Stream: 2, Data: b}) }}
		cmd, err := startTask(m.Argv, taskEnv(env, id, i), m.Dir, nil, out, errw)
		if err == nil {
			w.mu.Lock()
			w.runs[m.Step][id] = cmd
			w.mu.Unlock()
		}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			code := 127
			if err == nil {
				code = exitStatus(cmd, cmd.Wait())
			} else {
				errw.emit([]byte(fmt.Sprintf("srun: %v\n", err)))
			}
			out.flush()
			errw.flush()
			_ = w.p.send(msg{Kind: "exit", Step: m.Step, Task: id, Code: code})
			mu.Lock()
			left--
			last := left == 0
			mu.Unlock()
			if last {
				w.mu.Lock()
				delete(w.runs, m.Step)
				w.mu.Unlock()
				_ = w.p.send(msg{Kind: "end", Step: m.Step})
			}
		}()
	}
}

// kill ends the tasks of step (every step: -1): SIGTERM, SIGKILL 5 s later.
func (w *worker) kill(step int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for s, tasks := range w.runs {
		if step >= 0 && s != step {
			continue
		}
		for _, cmd := range tasks {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			time.AfterFunc(5*time.Second, func() { _ = cmd.Process.Kill() })
		}
	}
}

// signal sends SIGTERM to the tasks of step, as srun forwards a signal.
func (w *worker) signal(step int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, cmd := range w.runs[step] {
		_ = cmd.Process.Signal(syscall.SIGTERM)
	}
}

// stepEnv adds a step's variables to a task's environment.
func stepEnv(env map[string]string, step, ntasks int, tasks []int, nodelist string) {
	per := make([]string, len(tasks))
	for i, n := range tasks {
		per[i] = strconv.Itoa(n)
	}
	env["SLURM_STEP_ID"], env["SLURM_STEPID"] = strconv.Itoa(step), strconv.Itoa(step)
	env["SLURM_STEP_NUM_TASKS"], env["SLURM_NTASKS"], env["SLURM_NPROCS"] = strconv.Itoa(ntasks), strconv.Itoa(ntasks), strconv.Itoa(ntasks)
	env["SLURM_STEP_NUM_NODES"] = strconv.Itoa(len(tasks))
	env["SLURM_STEP_TASKS_PER_NODE"] = strings.Join(per, ",")
	if nodelist != "" {
		env["SLURM_STEP_NODELIST"] = nodelist
	}
}
