package node

import (
	"slices"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// reattach finds the runs an earlier agent left in the state folder: one
// still running is followed again (watched through /proc, since it is no
// longer this process's child); one that ended meanwhile has its exit
// status read from the file its wrapper wrote; one that vanished without
// a status is reported lost. None is started again.
func (r *runner) reattach() error {
	recs, err := r.files.all()
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rec := range recs {
		if _, ok := r.runs[rec.CommandID]; ok {
			continue
		}
		rn := &run{rec: rec, done: make(chan struct{})}
		r.runs[rec.CommandID] = rn
		switch {
		case r.ours(rec):
			r.logger.Info("node: reattached to a running job", "job", rec.JobID, "pid", rec.PID)
			if rec.Session == nil {
				r.started(rec, "job")
			} else if r.sessions != nil {
				r.sessions.add(r.ctx, rec.JobID, rec.SessionPort, rec.Session) // serve it again
			}
			go r.watch(rn, rec)
		default:
			if code, ok := r.files.exitCode(rec.CommandID); ok {
				rn.exit = api.JobExit{ExitCode: &code}
			} else {
				rn.exit = api.JobExit{Lost: true, Message: "the process was gone when the node agent restarted"}
			}
			close(rn.done)
		}
		r.follow(rn)
	}
	return nil
}

// ours reports whether rec's process still runs and is the wrapper this
// agent started (not another process that got the pid since).
func (r *runner) ours(rec record) bool {
	if rec.PID <= 0 || !r.procfs.Alive(rec.PID) {
		return false
	}
	args := r.procfs.Cmdline(rec.PID)
	return slices.Contains(args, wrapperName) && slices.Contains(args, r.files.exit(rec.CommandID))
}

// watch waits for a reattached run's process (rec, a copy: the follower
// updates rn.rec meanwhile) to end.
func (r *runner) watch(rn *run, rec record) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for r.ours(rec) {
		select {
		case <-r.ctx.Done():
			return
		case <-tick.C:
		}
	}
	if code, ok := r.files.exitCode(rec.CommandID); ok {
		rn.exit = api.JobExit{ExitCode: &code}
	} else {
		rn.exit = api.JobExit{Lost: true, Message: "the process ended while the node agent was away, leaving no exit status"}
	}
	close(rn.done)
}
