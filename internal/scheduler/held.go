package scheduler

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// held reports whether a pending job may not start in this pass whatever
// the GPUs: it waits for another job's end (a dependency), or it is a task
// of an array that already runs as many tasks as it may (%N), counting the
// starts of this pass. Such a job is explained and blocks nobody.
func (p *pass) held(qj *qjob, o *outcome) bool {
	j := qj.job
	if len(j.WaitsFor) > 0 {
		o.code, o.reason, o.noETA = ReasonDependency, dependencyWords(j.WaitsFor), true
		return true
	}
	if j.ArrayID != 0 && j.ArrayMaxRunning > 0 && p.arrayRunning[j.ArrayID] >= j.ArrayMaxRunning {
		o.code, o.noETA = ReasonArrayLimit, true
		o.reason = fmt.Sprintf("array %d runs at most %d of its tasks at once (%%%d); %d run now",
			j.ArrayID, j.ArrayMaxRunning, j.ArrayMaxRunning, p.arrayRunning[j.ArrayID])
		return true
	}
	return false
}

// countArrays counts the running tasks of each array (stopping ones too:
// they hold their GPUs until they end).
func (p *pass) countArrays(s *Snapshot) {
	p.arrayRunning = map[int64]int{}
	seen := map[int64]bool{}
	for i := range s.Running {
		if j := &s.Running[i]; j.ArrayID != 0 && !seen[j.ID] {
			seen[j.ID] = true
			p.arrayRunning[j.ArrayID]++
		}
	}
}

// dependencyWords says what a job waits for: the condition on the lowest
// job ID, and how many more.
func dependencyWords(ds []Dependency) string {
	d := slices.MinFunc(ds, func(a, b Dependency) int {
		return cmp.Or(cmp.Compare(a.JobID, b.JobID), cmp.Compare(a.Kind, b.Kind))
	})
	id := "job " + strconv.FormatInt(d.JobID, 10)
	if d.Array {
		id = "the tasks of array " + strconv.FormatInt(d.JobID, 10)
	}
	var s string
	switch d.Kind {
	case DependOK:
		s = "waits for " + id + " to complete successfully (afterok)"
	case DependNotOK:
		s = "waits for " + id + " to fail, be canceled or time out (afternotok)"
	case DependSingleton:
		s = "waits for " + id + ", of the same name, to end (singleton)"
	default:
		s = "waits for " + id + " to end (afterany)"
	}
	if n := len(ds) - 1; n > 0 {
		s += fmt.Sprintf(", and %d more", n)
	}
	return s
}
