package sim

import (
	"errors"
	"fmt"
	"io"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// ReadTiresias reads the job trace of the Tiresias (NSDI'19) simulator:
// job_id,num_gpu,submit_time,iterations,model_name,duration,interval, with
// times in seconds. Arrival is submit_time and runtime is duration;
// iterations, model_name and interval are not used. Jobs with a duration
// of 0 are skipped and counted. Every job has normal priority, and users
// are assigned by hashing job_id (see ReadOptions).
func ReadTiresias(r io.Reader, file string, opt ReadOptions) (*Trace, error) {
	if opt.Users < 1 {
		return nil, fmt.Errorf("users must be at least 1, not %d", opt.Users)
	}
	t, err := openTable(r, file, "job_id", "num_gpu", "submit_time", "duration")
	if err != nil {
		return nil, err
	}
	tr := &Trace{File: file, Format: FormatTiresias, Users: hashedUsers(opt.Users)}
	for {
		more, err := t.next()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		tr.Rows++
		id := t.str("job_id")
		if id == "" {
			return nil, t.errAt("job_id", errors.New("the job id is empty"))
		}
		gpus, err := t.gpus("num_gpu")
		if err != nil {
			return nil, err
		}
		submit, ok, err := t.float("submit_time")
		if err == nil && (!ok || submit < 0) {
			err = t.errAt("submit_time", fmt.Errorf("%q is not a time in seconds ≥ 0", t.str("submit_time")))
		}
		if err != nil {
			return nil, err
		}
		duration, ok, err := t.float("duration")
		if err == nil && (!ok || duration < 0) {
			err = t.errAt("duration", fmt.Errorf("%q is not a duration in seconds ≥ 0", t.str("duration")))
		}
		if err != nil {
			return nil, err
		}
		if duration == 0 {
			tr.skip("zero duration")
			continue
		}
		tr.Jobs = append(tr.Jobs, Job{
			ID: int64(len(tr.Jobs) + 1), Name: id, User: userOf(id, opt.Seed, opt.Users),
			Submit: seconds(submit), Runtime: seconds(duration), GPUs: gpus,
			Priority: scheduler.PriorityNormal,
		})
	}
	tr.Notes = append(tr.Notes,
		"arrival = submit_time; runtime = duration; every job normal priority",
		hashedUsersNote("job_id", opt),
	)
	return tr, nil
}
