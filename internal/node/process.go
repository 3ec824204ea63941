package node

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// wrapper runs the job's command ($1) as a child and writes its exit
// status to $2, so that an agent restarted meanwhile still learns how the
// job ended. SIGTERM and SIGINT reach the job (the whole process group
// gets them on a stop); the wrapper itself outlives them to write the file.
//
// The shell running the command exits on SIGTERM only once the command in
// the foreground has ended, with its status (trap 'exit $?'): a job that
// is a script or program (./train.sh) saves on SIGTERM and exits 0 within
// its grace, and the run ends then, not when the shell in between dies
// with 143 while the job is still saving (the control plane would give its
// GPUs away meanwhile). A command line "a; b" still stops after a.
//
// A signal the wrapper traps interrupts its wait (status 128+n) even when
// the command then exits cleanly, so after a trap (t=1) it waits again for
// the command's own status; a shell that has forgotten it by then (127,
// or bash's -1) keeps 128+n.
const wrapper = `trap 't=1; kill -TERM $c 2>/dev/null' TERM
trap 't=1; kill -INT $c 2>/dev/null' INT
/bin/sh -c "trap 'exit \$?' TERM INT
$1" &
c=$!
s=
while :; do
  t=0; wait $c; r=$?
  case $r in -*|127) [ -n "$s" ] || s=$r ;; *) s=$r ;; esac
  [ "$t" = 1 ] || break
done
echo $s > "$2"
exit $s`

// wrapperName is the wrapper's $0, how a restarted agent recognises it.
const wrapperName = "gpusched-job"

// startProcess starts s's command for run id in its own process group as
// who, its output appended to the run's log file; host is the node's name.
func startProcess(files runFiles, id int64, s *api.StartJob, who identity, host, stepProgram string) (*exec.Cmd, error) {
	dir := s.Workdir
	if dir == "" {
		dir = who.home
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("working directory %q does not exist on this host", dir)
	}
	logf, err := os.OpenFile(files.log(id), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("node: output file of run %d: %w", id, err)
	}
	defer logf.Close()
	if err := os.WriteFile(files.exit(id), nil, 0o600); err != nil {
		return nil, fmt.Errorf("node: exit file of run %d: %w", id, err)
	}
	if who.cred != nil {
		// The wrapper writes the exit file as the job's user.
		if err := os.Chown(files.exit(id), who.uid, who.gid); err != nil {
			return nil, fmt.Errorf("node: exit file of run %d: %w", id, err)
		}
	}
	bin, err := writeShims(files.bin(id))
	if err != nil {
		return nil, err
	}
	if batchSteps(s) {
		if s, err = withSteps(files, id, s, who, stepProgram, bin); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command("/bin/sh", "-c", wrapper, wrapperName, s.Command, files.exit(id))
	cmd.Dir = dir
	cmd.Env = jobEnv(s, who, dir, host, bin)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: who.cred}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %q: %w", s.Command, err)
	}
	return cmd, nil
}

// jobEnv is the job's environment: a clean login-like base, the job's own
// variables, then CUDA_VISIBLE_DEVICES, GPUSCHED_JOB_ID and, for a task of
// an array, GPUSCHED_ARRAY_JOB_ID, _TASK_ID, _TASK_COUNT, _TASK_MIN and
// _TASK_MAX (and the same as Slurm's SLURM_ARRAY_*), for a part of a
// multi-node job MASTER_ADDR, MASTER_PORT, WORLD_SIZE, NODE_RANK and
// GPUSCHED_NNODES, _NODE_RANK, _GPUS_PER_NODE, _NODELIST, and Slurm's own job
// variables (see slurmEnv), with srun and scontrol first on the PATH (bin,
// see writeShims); dir is the working directory, host the node's name.
func jobEnv(s *api.StartJob, who identity, dir, host, bin string) []string {
	env := map[string]string{
		"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME": who.home, "USER": who.name, "LOGNAME": who.name, "SHELL": "/bin/sh",
	}
	for _, k := range []string{"LANG", "TZ"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for k, v := range s.Env {
		env[k] = v
	}
	env["CUDA_VISIBLE_DEVICES"] = visibleDevices(s.GPUs, s.GPUUUIDs)
	env["GPUSCHED_JOB_ID"] = strconv.FormatInt(s.JobID, 10)
	if s.Array != nil {
		maps.Copy(env, s.Array.Env())
	}
	if s.Part != nil {
		maps.Copy(env, s.Part.Env())
	}
	slurmEnv(env, s, who, dir, host)
	if bin != "" {
		env["PATH"] = bin + ":" + env["PATH"]
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// visibleDevices is CUDA_VISIBLE_DEVICES for GPUs at these indices with
// these UUIDs: the indices, or, when some are MIG devices (which share
// their parent's index), the UUIDs ("MIG-…,MIG-…"), as CUDA names them.
func visibleDevices(idx []int, uuids []string) string {
	if onMIG(uuids) && len(uuids) == len(idx) {
		return strings.Join(uuids, ",")
	}
	return gpuList(idx)
}

// onMIG reports whether some of the devices are MIG devices.
func onMIG(uuids []string) bool {
	return slices.ContainsFunc(uuids, func(u string) bool { return strings.HasPrefix(u, "MIG-") })
}

// exitOf turns a wrapper's end into the report: the status the wrapper
// wrote wins; else the wait status (the wrapper was killed too).
func exitOf(files runFiles, id int64, waitErr error, state *os.ProcessState) api.JobExit {
	if code, ok := files.exitCode(id); ok {
		return api.JobExit{ExitCode: &code}
	}
	if state != nil {
		if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code := 128 + int(ws.Signal())
			return api.JobExit{ExitCode: &code, Signal: signalName(ws.Signal())}
		}
		code := state.ExitCode()
		return api.JobExit{ExitCode: &code}
	}
	msg := "the process ended and left no exit status"
	if waitErr != nil && !errors.Is(waitErr, os.ErrProcessDone) {
		msg += ": " + waitErr.Error()
	}
	return api.JobExit{Lost: true, Message: msg}
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	}
	return "signal " + strconv.Itoa(int(s))
}
