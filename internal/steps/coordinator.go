package steps

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// coordinator relays the steps the batch script's sruns start to the
// workers of the other nodes, and their output and statuses back.
type coordinator struct {
	cfg  config
	base map[string]string // the batch script's environment as it started

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when a worker joins or leaves
	workers map[int]*peer
	left    map[int]chan struct{} // closed when that worker's connection ends
	lost    map[int]bool
	relays  map[int]*relay
	next    int
	ending  bool
	stopped atomic.Bool // the script got the job's stop
}

// relay is one step: the srun that asked for it and its remote nodes.
type relay struct {
	srun  *peer
	nodes []int
}

func newCoordinator(cfg config) *coordinator {
	return &coordinator{cfg: cfg, base: environ(), changed: make(chan struct{}), workers: map[int]*peer{},
		left: map[int]chan struct{}{}, lost: map[int]bool{}, relays: map[int]*relay{}}
}

// serve takes connections until l is closed.
func (c *coordinator) serve(l net.Listener) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		go c.handle(conn)
	}
}

func (c *coordinator) handle(conn net.Conn) {
	defer conn.Close()
	p, hello, err := accept(conn, c.cfg.secret)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: refused a connection from %s: %v\n", Name, conn.RemoteAddr(), err)
		return
	}
	switch hello.Role {
	case "worker":
		c.serveWorker(p, hello.Node)
	case "srun":
		c.serveSrun(p)
	}
}

// serveWorker registers the worker of node and relays what it sends to
// the sruns of its steps until it leaves.
func (c *coordinator) serveWorker(p *peer, node int) {
	if node < 1 || node >= c.cfg.nodes {
		return
	}
	left := make(chan struct{})
	c.mu.Lock()
	c.workers[node], c.left[node] = p, left
	c.notify()
	c.mu.Unlock()
	defer close(left)
	for {
		m, err := p.recv()
		if err != nil {
			break
		}
		c.mu.Lock()
		r := c.relays[m.Step]
		c.mu.Unlock()
		if r != nil {
			m.Node = node
			_ = r.srun.send(m)
		}
	}
	c.mu.Lock()
	delete(c.workers, node)
	var tell []*peer
	if !c.ending {
		c.lost[node] = true
		c.notify()
		for _, r := range c.relays {
			if slices.Contains(r.nodes, node) {
				tell = append(tell, r.srun)
			}
		}
	}
	c.mu.Unlock()
	for _, p := range tell {
		_ = p.send(msg{Kind: "lost", Node: node})
	}
}

// notify wakes whoever waits for workers; c.mu is held.
func (c *coordinator) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// waitWorkers waits until the workers of nodes have joined, and returns
// them; an error when one was lost or the wait ran out.
func (c *coordinator) waitWorkers(nodes []int, deadline time.Time) (map[int]*peer, error) {
	for {
		c.mu.Lock()
		got := map[int]*peer{}
		for _, n := range nodes {
			if c.lost[n] {
				c.mu.Unlock()
				return nil, fmt.Errorf("node %d of the job has left its steps", n)
			}
			if w := c.workers[n]; w != nil {
				got[n] = w
			}
		}
		ch := c.changed
		c.mu.Unlock()
		if len(got) == len(nodes) {
			return got, nil
		}
		select {
		case <-ch:
		case <-time.After(time.Until(deadline)):
			return nil, fmt.Errorf("%d of the job's nodes did not join its steps within %s", len(nodes)-len(got), c.cfg.wait)
		}
	}
}

// serveSrun starts the step an srun asks for on the other nodes and relays
// until the srun goes; an srun gone early (killed) takes its tasks along.
func (c *coordinator) serveSrun(p *peer) {
	m, err := p.recv()
	if err != nil || m.Kind != "step" || len(m.Tasks) < 2 || len(m.Tasks) > c.cfg.nodes {
		_ = p.send(msg{Kind: "failed", Text: "a step runs on 2 to SLURM_NNODES nodes"})
		return
	}
	nodes := make([]int, 0, len(m.Tasks)-1)
	for n := 1; n < len(m.Tasks); n++ {
		nodes = append(nodes, n)
	}
	workers, err := c.waitWorkers(nodes, time.Now().Add(c.cfg.wait))
	if err != nil {
		_ = p.send(msg{Kind: "failed", Text: err.Error()})
		return
	}
	set, unset := c.delta(m.Env)
	c.mu.Lock()
	id := c.next
	c.next++
	c.relays[id] = &relay{srun: p, nodes: nodes}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.relays, id)
		c.mu.Unlock()
		for _, w := range workers {
			_ = w.send(msg{Kind: "kill", Step: id}) // nothing when the step has ended
		}
	}()
	launch := msg{Kind: "launch", Step: id, Argv: m.Argv, Set: set, Unset: unset, Bin: filepath.Dir(c.cfg.bin),
		Dir: m.Dir, Tasks: m.Tasks, NodeList: m.NodeList}
	if err := p.send(msg{Kind: "started", Step: id}); err != nil {
		return
	}
	for _, n := range nodes {
		if err := workers[n].send(launch); err != nil {
			_ = p.send(msg{Kind: "lost", Node: n})
		}
	}
	for {
		m, err := p.recv()
		if err != nil {
			return
		}
		if m.Kind == "signal" {
			go c.forwardSignal(p, id, workers)
		}
	}
}

// signalWait is how long a signal an srun got waits before it goes on:
// long enough for the coordinator to learn that the whole job is being
// stopped (every node's processes get the stop's signal then, once).
const signalWait = time.Second

// forwardSignal sends a signal an srun got on to its step's tasks (the
// workers', and back to the srun for its own), unless the job is being
// stopped.
func (c *coordinator) forwardSignal(p *peer, id int, workers map[int]*peer) {
	time.Sleep(signalWait)
	if c.stopped.Load() {
		return
	}
	for _, w := range workers {
		_ = w.send(msg{Kind: "signal", Step: id})
	}
	_ = p.send(msg{Kind: "signal", Step: id})
}

// drain waits (bounded) until the workers connected now have left: after
// a stop, their tasks' last output still reaches the sruns.
func (c *coordinator) drain(limit time.Duration) {
	c.mu.Lock()
	lefts := make([]chan struct{}, 0, len(c.workers))
	for n := range c.workers {
		lefts = append(lefts, c.left[n])
	}
	c.mu.Unlock()
	deadline := time.After(limit)
	for _, l := range lefts {
		select {
		case <-l:
		case <-deadline:
			return
		}
	}
}

// delta is how an srun's environment differs from the batch script's at
// its start: what the script set or changed, and what it unset. A worker
// keeps its own node's values of everything else (the node's GPUs, names).
func (c *coordinator) delta(env map[string]string) (map[string]string, []string) {
	set := map[string]string{}
	for k, v := range env {
		if old, ok := c.base[k]; !ok || old != v {
			set[k] = v
		}
	}
	var unset []string
	for k := range c.base {
		if _, ok := env[k]; !ok {
			unset = append(unset, k)
		}
	}
	for _, k := range []string{EnvAddr, EnvKey, EnvBin} {
		delete(set, k)
	}
	return set, unset
}
