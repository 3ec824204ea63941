package sim

import (
	"slices"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// waitsFor is what job j still waits for, as the core reads it: each job
// of j.After in the workload that has not completed (one that timed out or
// was dropped too: its dependent is dropped at the next pass, neverMet).
func (s *simulator) waitsFor(j Job) []scheduler.Dependency {
	var out []scheduler.Dependency
	for _, id := range j.After {
		k, ok := s.index[id]
		if !ok {
			continue // not in the replay (Prepare's Limit left it out)
		}
		if s.runs[k].state != stateDone || s.res.Records[k].TimedOut {
			out = append(out, scheduler.Dependency{Kind: scheduler.DependOK, JobID: id})
		}
	}
	return out
}

// neverMet reports whether queued job i waits for a job that can no longer
// complete: it timed out or was dropped.
func (s *simulator) neverMet(i int) bool {
	return slices.ContainsFunc(s.w.Jobs[i].After, func(id int64) bool {
		k, ok := s.index[id]
		return ok && (s.runs[k].state == stateDropped || s.runs[k].state == stateDone && s.res.Records[k].TimedOut)
	})
}

// refreshWaits brings the dependencies of the queued jobs up to date.
func (s *simulator) refreshWaits(pending []scheduler.Job) {
	for k := range pending {
		if i := s.index[pending[k].ID]; len(s.w.Jobs[i].After) > 0 {
			pending[k].WaitsFor = s.waitsFor(s.w.Jobs[i])
		}
	}
}
