package steps

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// runBatch runs the batch script once, here, while the coordinator serves
// the job's other nodes; once the script has ended (and every node has
// joined, so that none waits for a coordinator gone), it tells the workers
// they are done and exits with the script's status. Stopped (SIGTERM or
// SIGINT, which the script's whole process group gets), it waits for the
// script and tells the workers nothing: their own stop ends them, and it
// relays until they have left.
func runBatch(cfg config, script string) int {
	_, port, err := net.SplitHostPort(cfg.addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s %q: %v\n", Name, EnvAddr, cfg.addr, err)
		return 1
	}
	l, err := net.Listen("tcp", ":"+port)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: listen for the job's other nodes: %v\n", Name, err)
		return 1
	}
	defer l.Close()
	c := newCoordinator(cfg)
	go c.serve(l)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	// As the node's job wrapper does: the shell exits on SIGTERM only once
	// the script in the foreground has ended (saving), with its status.
	cmd := exec.Command("/bin/sh", "-c", "trap 'exit $?' TERM INT\n"+script)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: start the batch script: %v\n", Name, err)
		return 1
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	stopped := false
	var werr error
wait:
	for {
		select {
		case <-sigs:
			stopped = true
			c.stopped.Store(true)
		case werr = <-ended:
			break wait
		}
	}
	status := exitStatus(cmd, werr)
	if stopped {
		c.drain(10 * time.Minute) // the stop's SIGKILL ends a longer wait
	} else {
		c.finish()
	}
	return status
}

// finish waits (bounded) for every node to have joined, tells each worker
// the script has ended, and waits (bounded) for them to leave.
func (c *coordinator) finish() {
	var nodes []int
	for n := 1; n < c.cfg.nodes; n++ {
		nodes = append(nodes, n)
	}
	if _, err := c.waitWorkers(nodes, time.Now().Add(c.cfg.wait)); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", Name, err)
	}
	c.mu.Lock()
	c.ending = true
	workers := make(map[int]*peer, len(c.workers))
	lefts := make([]chan struct{}, 0, len(c.workers))
	for n, w := range c.workers {
		workers[n] = w
		lefts = append(lefts, c.left[n])
	}
	c.mu.Unlock()
	for _, w := range workers {
		_ = w.send(msg{Kind: "done"})
	}
	deadline := time.After(10 * time.Second)
	for _, l := range lefts {
		select {
		case <-l:
		case <-deadline:
			return
		}
	}
}
