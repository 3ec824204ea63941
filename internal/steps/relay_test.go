package steps

import (
	"net"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The coordinator hands an srun's step to the worker of each other node
// with what the script changed of its environment (the rest stays the
// node's own), and relays the worker's output and statuses back.
func TestCoordinatorRelaysAStep(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := newCoordinator(config{secret: []byte("s"), nodes: 2, wait: 10 * time.Second, bin: "/runs/1.bin/gpusched-step"})
	c.base = map[string]string{"KEPT": "1", "CHANGED": "2", "GONE": "3", "PATH": "/runs/1.bin:/bin", EnvAddr: "a"}
	go c.serve(l)
	connect := func(role string, node int) *peer {
		conn, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		p, err := greet(conn, []byte("s"), role, node)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	w := connect("worker", 1)
	s := connect("srun", 0)
	env := map[string]string{"KEPT": "1", "CHANGED": "20", "NEW": "4", "PATH": "/runs/1.bin:/bin", EnvAddr: "b"}
	if err := s.send(msg{Kind: "step", Argv: []string{"echo", "hi"}, Env: env, Tasks: []int{2, 2}, NodeList: "a,b", Dir: "/w"}); err != nil {
		t.Fatal(err)
	}
	if m, err := s.recv(); err != nil || m.Kind != "started" || m.Step != 0 {
		t.Fatalf("srun got %+v %v, want step 0 started", m, err)
	}
	launch, err := w.recv()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(launch.Unset)
	want := msg{Kind: "launch", Argv: []string{"echo", "hi"}, Set: map[string]string{"CHANGED": "20", "NEW": "4"}, Unset: []string{"GONE"},
		Bin: "/runs/1.bin", Dir: "/w", Tasks: []int{2, 2}, NodeList: "a,b"}
	if d := cmp.Diff(want, launch); d != "" {
		t.Errorf("the worker's launch (-want +got):\n%s", d)
	}
	for _, m := range []msg{{Kind: "out", Stream: 1, Data: []byte("hi\n")}, {Kind: "exit", Task: 3, Code: 7}, {Kind: "end"}} {
		if err := w.send(m); err != nil {
			t.Fatal(err)
		}
		got, err := s.recv()
		if err != nil {
			t.Fatal(err)
		}
		m.Node = 1
		if d := cmp.Diff(m, got); d != "" {
			t.Errorf("relayed (-want +got):\n%s", d)
		}
	}
}

// An srun whose step needs a node that has left is told so.
func TestCoordinatorStepOnALostNode(t *testing.T) {
	t.Parallel()
	c, addr := listen(t, "s")
	c.mu.Lock()
	c.lost[1] = true
	c.mu.Unlock()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := greet(conn, []byte("s"), "srun", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.send(msg{Kind: "step", Argv: []string{"true"}, Tasks: []int{1, 1}}); err != nil {
		t.Fatal(err)
	}
	if m, err := s.recv(); err != nil || m.Kind != "failed" {
		t.Errorf("srun got %+v %v, want failed", m, err)
	}
}
