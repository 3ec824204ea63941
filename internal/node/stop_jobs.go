package node

import (
	"time"
)

// StopJobs stops every job this agent runs or reattached to (SIGTERM to
// each job's process group, SIGKILL after grace) and waits until they
// ended, at most grace and a second more. It returns the ids of the jobs
// it stopped. The records stay in the state folder, so the next agent on
// it reports the jobs' ends (harmless once the server has ended them). For agents whose jobs must not
// outlive them: the simulated nodes of `serve --dev`.
func (a *Agent) StopJobs(grace time.Duration) []int64 {
	r := a.runs.Load()
	if r == nil {
		return nil
	}
	r.mu.Lock()
	runs := make([]*run, 0, len(r.runs))
	ids := make([]int64, 0, len(r.runs))
	for id, rn := range r.runs {
		runs, ids = append(runs, rn), append(ids, id)
	}
	r.mu.Unlock()
	var stopped []int64
	for i, id := range ids {
		select {
		case <-runs[i].done:
			continue
		default:
		}
		if runs[i].rec.PID > 0 && r.stopRun(id, grace) {
			stopped = append(stopped, id)
		}
	}
	deadline := time.Now().Add(grace + time.Second)
	for _, rn := range runs {
		for rn.rec.PID > 0 && r.procfs.Alive(rn.rec.PID) && time.Now().Before(deadline) {
			select {
			case <-rn.done:
			case <-time.After(50 * time.Millisecond):
				continue
			}
			break
		}
	}
	return stopped
}
