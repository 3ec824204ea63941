package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// FormatPhilly is Microsoft's Philly trace (msr-fiddle/philly-traces,
// cluster_job_log: a JSON array of jobs, MIT licence).
const FormatPhilly = "philly"

// phillyTime is the trace's time format (no zone; read as UTC).
const phillyTime = "2006-01-02 15:04:05"

// phillyJob is one element of cluster_job_log.
type phillyJob struct {
	JobID     string `json:"jobid"`
	User      string `json:"user"`
	Status    string `json:"status"`
	Submitted string `json:"submitted_time"`
	Attempts  []struct {
		Start  string `json:"start_time"`
		End    string `json:"end_time"`
		Detail []struct {
			IP   string   `json:"ip"`
			GPUs []string `json:"gpus"`
		} `json:"detail"`
	} `json:"attempts"`
}

// ReadPhilly reads a Philly cluster_job_log: arrival = submitted_time;
// runtime = the last attempt's end − start; GPUs = the GPUs of the last
// attempt over all its machines; users as named (sorted, user01…); every
// job normal priority. Jobs with no attempt, a time of "None", a runtime
// ≤ 0 or no GPU are skipped and counted.
func ReadPhilly(r io.Reader, file string) (*Trace, error) {
	var raw []phillyJob
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: not a Philly cluster_job_log (a JSON array of jobs): %w", file, err)
	}
	tr := &Trace{File: file, Format: FormatPhilly, Rows: len(raw), Users: []string{""}}
	var names []string
	for _, p := range raw {
		if !slices.Contains(names, p.User) {
			names = append(names, p.User)
		}
	}
	slices.Sort(names)
	tr.Users = append(tr.Users, names...)
	var t0 time.Time
	type kept struct {
		j   Job
		sub time.Time
	}
	var ks []kept
	for i, p := range raw {
		sub, err := time.Parse(phillyTime, p.Submitted)
		if err != nil || len(p.Attempts) == 0 {
			tr.skip("never ran")
			continue
		}
		a := p.Attempts[len(p.Attempts)-1]
		start, err1 := time.Parse(phillyTime, a.Start)
		end, err2 := time.Parse(phillyTime, a.End)
		gpus := 0
		for _, d := range a.Detail {
			gpus += len(d.GPUs)
		}
		switch {
		case err1 != nil || err2 != nil || !end.After(start):
			tr.skip("never ran")
			continue
		case gpus == 0:
			tr.skip("cpu-only")
			continue
		}
		if t0.IsZero() || sub.Before(t0) {
			t0 = sub
		}
		u, _ := slices.BinarySearch(names, p.User)
		ks = append(ks, kept{Job{ID: int64(i + 1), Name: p.JobID, User: int64(u + 1), Runtime: end.Sub(start), GPUs: gpus,
			Priority: scheduler.PriorityNormal}, sub})
	}
	for _, k := range ks {
		k.j.Submit = k.sub.Sub(t0)
		tr.Jobs = append(tr.Jobs, k.j)
	}
	tr.Notes = append(tr.Notes, "Philly: arrival = submitted_time; runtime = last attempt's end - start; GPUs of the last attempt; every job normal priority",
		fmt.Sprintf("%d users named in the trace", len(names)))
	return tr, nil
}
