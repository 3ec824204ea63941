package steps

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// startTask starts one task of a step: argv, found on env's PATH by a
// shell (so the PATH the script set holds), in dir, in the caller's
// process group (so the job's stop reaches it); stdin nil: none.
func startTask(argv, env []string, dir string, stdin io.Reader, stdout, stderr io.Writer) (*exec.Cmd, error) {
	cmd := exec.Command("/bin/sh", append([]string{"-c", `exec "$@"`, "srun"}, argv...)...)
	cmd.Env = env
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		cmd.Dir = dir
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.WaitDelay = 5 * time.Second // a task's children holding its output do not hold the step
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// exitStatus is a task's status as a shell tells it: its exit code, or
// 128 plus the signal that killed it.
func exitStatus(cmd *exec.Cmd, err error) int {
	if st := cmd.ProcessState; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return st.ExitCode()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 1
}

// taskEnv is a task's environment: base with its ids, and without the
// step program's own variables (a nested srun runs on its node only).
func taskEnv(base map[string]string, procid, localid int) []string {
	env := maps.Clone(base)
	for _, k := range []string{EnvAddr, EnvKey, EnvBin} {
		delete(env, k)
	}
	env["SLURM_PROCID"] = strconv.Itoa(procid)
	env["SLURM_LOCALID"] = strconv.Itoa(localid)
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// environ is the process's environment as a map.
func environ() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// firstTasks is the first task id of each node of a step, as Slurm's
// block distribution of tasks per node gives them.
func firstTasks(tasks []int) []int {
	first := make([]int, len(tasks))
	for i := 1; i < len(tasks); i++ {
		first[i] = first[i-1] + tasks[i-1]
	}
	return first
}

// spread is how many of ntasks each of nodes runs: the first ntasks%nodes
// nodes one more (Slurm's block distribution), each at least one.
func spread(ntasks, nodes int) []int {
	ntasks = max(ntasks, nodes)
	out := make([]int, nodes)
	for i := range out {
		out[i] = ntasks / nodes
		if i < ntasks%nodes {
			out[i]++
		}
	}
	return out
}

// lineWriter sends what a task writes in whole lines where it can (a
// line longer than 32 KiB goes in pieces), so that the lines of tasks
// running at once do not mix.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	emit func([]byte)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if i := bytes.LastIndexByte(w.buf, '\n'); i >= 0 {
		w.emit(bytes.Clone(w.buf[:i+1]))
		w.buf = bytes.Clone(w.buf[i+1:])
	} else if len(w.buf) >= 32<<10 {
		w.emit(w.buf)
		w.buf = nil
	}
	return len(p), nil
}

// flush sends what is left once the task has ended.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(w.buf)
		w.buf = nil
	}
}
