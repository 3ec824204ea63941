package steps

import (
	"errors"
	"net"
	"testing"
	"time"
)

// listen serves a coordinator for a two-node job with secret on a
// loopback port, until the test ends.
func listen(t *testing.T, secret string) (*coordinator, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	c := newCoordinator(config{secret: []byte(secret), nodes: 2, wait: 10 * time.Second})
	go c.serve(l)
	return c, l.Addr().String()
}

// The coordinator admits only peers that know the job's secret.
func TestCoordinatorRefusesWrongSecret(t *testing.T) {
	t.Parallel()
	_, addr := listen(t, "the job's secret")
	tests := map[string]struct {
		secret string
		want   error
	}{
		"right secret": {secret: "the job's secret"},
		"wrong secret": {secret: "a guess", want: errRefused},
		"no secret":    {secret: "", want: errRefused},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_, err = greet(conn, []byte(tc.secret), "srun", 0)
			if !errors.Is(err, tc.want) {
				t.Errorf("greet: %v, want %v", err, tc.want)
			}
		})
	}
}

// A worker refused by the coordinator gives up at once, non-zero.
func TestWorkerWithWrongSecretGivesUp(t *testing.T) {
	t.Parallel()
	_, addr := listen(t, "the job's secret")
	if code := runWorker(config{addr: addr, secret: []byte("a guess"), node: 1, nodes: 2, wait: time.Minute}); code == 0 {
		t.Error("a refused worker exited 0")
	}
}

// A worker exits 0 when the coordinator says the script has ended, and
// non-zero when it loses the coordinator.
func TestWorkerEnds(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		done bool
		want int
	}{
		"the script ended": {done: true, want: 0},
		"coordinator lost": {done: false, want: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			go func() {
				conn, err := l.Accept()
				if err != nil {
					return
				}
				defer conn.Close()
				p, _, err := accept(conn, []byte("s"))
				if err == nil && tc.done {
					_ = p.send(msg{Kind: "done"})
					_, _ = p.recv() // until the worker leaves
				}
			}()
			code := runWorker(config{addr: l.Addr().String(), secret: []byte("s"), node: 1, nodes: 2, wait: 10 * time.Second})
			if code != tc.want {
				t.Errorf("exit status %d, want %d", code, tc.want)
			}
		})
	}
}

// A step's tasks spread over its nodes as Slurm's block distribution does.
func TestSpread(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		ntasks, nodes int
		want          []int
	}{
		"even":           {4, 2, []int{2, 2}},
		"uneven":         {5, 2, []int{3, 2}},
		"one per node":   {1, 2, []int{1, 1}},
		"three on three": {3, 3, []int{1, 1, 1}},
	}
	for name, tc := range tests {
		got := spread(tc.ntasks, tc.nodes)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %v, want %v", name, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: %v, want %v", name, got, tc.want)
			}
		}
	}
}
