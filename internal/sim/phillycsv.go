package sim

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// FormatPhillyCSV is the per-job table of Microsoft's Philly trace that the
// Pollux (OSDI'21) artifact ships: petuum/adaptdl,
// simulator/traces/philly.csv (Apache-2.0), one row per job of the 2017
// cluster_job_log that ran on GPUs: timestamp,duration,num_gpus,gpu_time,cluster.
const FormatPhillyCSV = "philly-csv"

// ReadPhillyCSV reads that table: arrival = timestamp (UTC, relative to the
// earliest), runtime = duration (seconds), GPUs = num_gpus; gpu_time and
// cluster (the virtual cluster) are not used. The table names no user, so
// users are assigned by hashing the row's line number (see ReadOptions);
// every job has normal priority. Rows with a duration of 0 are skipped and
// counted.
func ReadPhillyCSV(r io.Reader, file string, opt ReadOptions) (*Trace, error) {
	if opt.Users < 1 {
		return nil, fmt.Errorf("users must be at least 1, not %d", opt.Users)
	}
	t, err := openTable(r, file, "timestamp", "duration", "num_gpus")
	if err != nil {
		return nil, err
	}
	tr := &Trace{File: file, Format: FormatPhillyCSV, Users: hashedUsers(opt.Users)}
	var t0 time.Time
	var subs []time.Time
	for {
		more, err := t.next()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		tr.Rows++
		sub, perr := time.Parse(phillyTime, t.str("timestamp"))
		if perr != nil {
			return nil, t.errAt("timestamp", fmt.Errorf("%q is not a time like 2017-10-09 07:01:55", t.str("timestamp")))
		}
		gpus, err := t.gpus("num_gpus")
		if err != nil {
			return nil, err
		}
		runtime, err := t.seconds("duration", true)
		if err != nil {
			return nil, err
		}
		if runtime == 0 {
			tr.skip("zero duration")
			continue
		}
		if t0.IsZero() || sub.Before(t0) {
			t0 = sub
		}
		name := "philly-" + strconv.Itoa(t.line)
		tr.Jobs = append(tr.Jobs, Job{ID: int64(len(tr.Jobs) + 1), Name: name, User: userOf(name, opt.Seed, opt.Users),
			Runtime: runtime, GPUs: gpus, Priority: scheduler.PriorityNormal})
		subs = append(subs, sub)
	}
	for i := range tr.Jobs {
		tr.Jobs[i].Submit = subs[i].Sub(t0)
	}
	tr.Notes = append(tr.Notes,
		"Philly (per-job CSV): arrival = timestamp; runtime = duration; GPUs = num_gpus; every job normal priority",
		hashedUsersNote("the line number", opt),
	)
	return tr, nil
}
