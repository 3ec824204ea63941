package node

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// runner is the agent's local executor: it starts jobs' processes, stops
// them, and follows each until its output is shipped and its exit reported.
type runner struct {
	ctx     context.Context // the agent's: runs outlive a session with the server
	files   runFiles
	procfs  gpu.ProcFS
	logger  *slog.Logger
	work    gpu.Workloads // nil unless the provider simulates load
	mapping map[string]string
	asSelf  bool // run every job as the agent itself
	report  reporter
	host    string // the node's name as the agent reports it (SLURM_JOB_NODELIST)
	// slots returns the shared GPUs' slots the agent registered (nil:
	// none); mps says the host runs CUDA MPS (shared.go).
	slots func() map[string]slot
	mps   bool
	addr  string // where other nodes reach this one (a multi-node job's MASTER_ADDR)
	// stepProgram is the binary that runs a multi-node batch job's steps
	// (slurm_steps.go).
	stepProgram string
	// sessions are the interactive sessions' servers among the runs.
	sessions *sessionBook

	mu   sync.Mutex
	runs map[int64]*run // by start command id
	wg   sync.WaitGroup
}

// reporter is how runs reach the control plane.
type reporter interface {
	ship(ctx context.Context, cmd int64, chunk api.LogChunk) error
	exited(ctx context.Context, cmd int64, exit api.JobExit) error
	// freshen reports the GPUs now (a heartbeat), before an exit report.
	freshen(ctx context.Context)
}

// run is one started (or re-found) job process.
type run struct {
	rec  record
	done chan struct{} // closed when the process ended; exit is set then
	exit api.JobExit
	stop sync.Once
}

// start starts the run of start command id, or, when it already runs (the
// command came again), returns its pid.
func (r *runner) start(id int64, s *api.StartJob) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rn, ok := r.runs[id]; ok {
		if s.Part != nil && rn.rec.MasterPort != 0 { // the answer says the same ports again
			s.Part.MasterAddr, s.Part.MasterPort, s.Part.StepPort = rn.rec.MasterAddr, rn.rec.MasterPort, rn.rec.StepPort
		}
		return rn.rec.PID, nil
	}
	who, err := jobIdentity(s, r.mapping, r.asSelf)
	if err != nil {
		return 0, err
	}
	if r.slots != nil {
		s = withShareEnv(s, r.slots(), r.mps) // a run on slots of a shared GPU
	}
	if err := rendezvous(s.Part, cmp.Or(r.addr, r.host)); err != nil {
		return 0, err
	}
	rec := record{CommandID: id, JobID: s.JobID, User: who.name, GPUs: s.GPUs, UUIDs: s.GPUUUIDs, StartedAt: time.Now()}
	if s.Part != nil {
		rec.MasterAddr, rec.MasterPort, rec.StepPort = s.Part.MasterAddr, s.Part.MasterPort, s.Part.StepPort
	}
	if s.Session != nil {
		if rec.SessionPort, err = freeLoopbackPort(); err != nil {
			return 0, err
		}
		rec.Session = s.Session
		s = sessionEnv(s, rec.SessionPort)
	}
	if err := r.files.save(rec); err != nil { // before the start: a crash now means lost, never twice
		return 0, err
	}
	cmd, err := startProcess(r.files, id, s, who, r.host, r.stepProgram)
	if err != nil {
		_ = r.files.remove(id)
		return 0, err
	}
	if s.Session != nil && r.sessions != nil {
		r.sessions.add(r.ctx, s.JobID, rec.SessionPort, s.Session)
	}
	rec.PID = cmd.Process.Pid
	if err := r.files.save(rec); err != nil {
		r.logger.Warn("node: could not record a started job", "job", s.JobID, "err", err)
	}
	rn := &run{rec: rec, done: make(chan struct{})}
	r.runs[id] = rn
	if s.Session == nil {
		// A session's server holds no GPU until its code uses one: a
		// simulated provider shows its GPUs idle.
		r.started(rec, "job-"+fmt.Sprint(s.JobID))
	}
	go func() {
		err := cmd.Wait()
		rn.exit = exitOf(r.files, id, err, cmd.ProcessState)
		close(rn.done)
	}()
	r.follow(rn)
	return rec.PID, nil
}

// startedOn is implemented by simulated providers that tell MIG devices
// apart (the fake): a run is recorded on its devices' UUIDs.
type startedOn interface {
	StartedOn(pid int, user, name string, uuids []string)
}

// started tells a simulated provider that rec's process runs on its GPUs,
// by UUID where the provider takes them (a MIG device shares its parent's
// index).
func (r *runner) started(rec record, name string) {
	if r.work == nil {
		return
	}
	if on, ok := r.work.(startedOn); ok && len(rec.UUIDs) > 0 {
		on.StartedOn(rec.PID, rec.User, name, rec.UUIDs)
		return
	}
	r.work.Started(rec.PID, rec.User, name, rec.GPUs)
}

// stopRun stops run id: SIGTERM to its process group, SIGKILL after grace.
// It reports whether such a run is going on here.
func (r *runner) stopRun(id int64, grace time.Duration) bool {
	r.mu.Lock()
	rn, ok := r.runs[id]
	r.mu.Unlock()
	if !ok {
		return false
	}
	select {
	case <-rn.done:
		return true // ended; its exit report is on its way
	default:
	}
	rn.stop.Do(func() {
		pid := rn.rec.PID
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		go func() {
			select {
			case <-rn.done:
			case <-time.After(grace):
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
		}()
	})
	return true
}

// follow ships rn's output while it runs, then the rest and its exit, and
// forgets it once the control plane has both.
func (r *runner) follow(rn *run) {
	ctx := r.ctx
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		backoff := time.Second
		freshened := false
		for {
			ended := false
			select {
			case <-ctx.Done():
				return
			case <-rn.done:
				ended = true
			case <-tick.C:
			}
			if ended && !freshened {
				// The GPUs are free of this process before the release commits.
				if r.work != nil {
					r.work.Ended(rn.rec.PID)
				}
				r.report.freshen(ctx)
				freshened = true
			}
			err := r.shipLog(ctx, rn)
			if err == nil && ended {
				err = r.report.exited(ctx, rn.rec.CommandID, rn.exit)
				if err == nil || gone(err) {
					r.forget(rn)
					return
				}
			}
			if err != nil && ctx.Err() == nil {
				r.logger.Warn("node: could not report a job to the control plane; retrying", "job", rn.rec.JobID, "err", err)
				select {
				case <-ctx.Done():
					return
				case <-time.After(backoff):
				}
				backoff = min(backoff*2, 15*time.Second)
				continue
			}
			backoff = time.Second
		}
	}()
}

// shipLog sends rn's output not yet shipped, in chunks.
func (r *runner) shipLog(ctx context.Context, rn *run) error {
	f, err := os.Open(r.files.log(rn.rec.CommandID))
	if err != nil {
		return nil // nothing written yet
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	for {
		n, _ := f.ReadAt(buf, rn.rec.Shipped)
		if n == 0 {
			return nil
		}
		err := r.report.ship(ctx, rn.rec.CommandID, api.LogChunk{Offset: rn.rec.Shipped, Data: buf[:n]})
		if gone(err) {
			return nil
		}
		if err != nil {
			return err
		}
		rn.rec.Shipped += int64(n)
		_ = r.files.save(rn.rec)
	}
}

func (r *runner) forget(rn *run) {
	r.mu.Lock()
	delete(r.runs, rn.rec.CommandID)
	r.mu.Unlock()
	if r.sessions != nil {
		r.sessions.remove(rn.rec.JobID)
	}
	if r.work != nil {
		r.work.Ended(rn.rec.PID)
	}
	if err := r.files.remove(rn.rec.CommandID); err != nil {
		r.logger.Warn("node: could not clean up a finished run", "job", rn.rec.JobID, "err", err)
	}
}

// gone reports an answer meaning the server no longer knows the run.
func gone(err error) bool { return api.IsStatus(err, 404) }

// gpus returns the GPU indices of the runs going on.
func (r *runner) gpus() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int
	for _, rn := range r.runs {
		select {
		case <-rn.done:
		default:
			out = append(out, rn.rec.GPUs...)
		}
	}
	return out
}
