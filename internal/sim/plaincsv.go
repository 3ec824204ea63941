package sim

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// ReadCSV reads our plain trace format: a header, then
// id,user,submit_s,duration_s,gpus[,priority][,estimate_s][,time_limit_s][,after][,array][,array_max_running]
// (columns found by header name). user is any name; priority is 1–4 or
// low, normal, high, critical (empty: normal); estimate_s is the runtime
// the user announces (empty: the exact duration); time_limit_s the job's
// limit (empty: none); after the ids of earlier rows that must complete
// before it starts, separated by spaces or semicolons (a pipeline: Slurm's
// afterok), or the name of an earlier array: all its tasks. array is the
// name of the job array the row is a task of (empty: none), shared by its
// tasks; array_max_running the array's %N, how many of its tasks may run
// at once (a whole number, "%3" too; empty or 0: no limit). Every bad
// value is an error naming its line and column: nothing is skipped
// silently.
func ReadCSV(r io.Reader, file string) (*Trace, error) {
	t, err := openTable(r, file, "id", "user", "submit_s", "duration_s", "gpus")
	if err != nil {
		return nil, err
	}
	tr := &Trace{File: file, Format: FormatCSV, Users: []string{""}}
	userIDs, jobIDs := map[string]int64{}, map[string]int64{}
	var arrays csvArrays
	for {
		more, err := t.next()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		tr.Rows++
		j := Job{ID: int64(len(tr.Jobs) + 1), Name: t.str("id")}
		if j.Name == "" {
			return nil, t.errAt("id", errors.New("the job id is empty"))
		}
		user := t.str("user")
		if user == "" {
			return nil, t.errAt("user", errors.New("the user is empty"))
		}
		if j.User = userIDs[user]; j.User == 0 {
			tr.Users = append(tr.Users, user)
			j.User = int64(len(tr.Users) - 1)
			userIDs[user] = j.User
		}
		if j.Submit, err = t.seconds("submit_s", true); err != nil {
			return nil, err
		}
		if j.Runtime, err = t.seconds("duration_s", false); err != nil {
			return nil, err
		}
		if j.GPUs, err = t.gpus("gpus"); err != nil {
			return nil, err
		}
		if j.Priority, err = parsePriority(t); err != nil {
			return nil, err
		}
		if t.str("estimate_s") != "" {
			if j.Estimate, err = t.seconds("estimate_s", false); err != nil {
				return nil, err
			}
		}
		if t.str("time_limit_s") != "" {
			if j.TimeLimit, err = t.seconds("time_limit_s", false); err != nil {
				return nil, err
			}
		}
		for _, name := range strings.FieldsFunc(t.str("after"), func(r rune) bool { return r == ';' || r == ' ' }) {
			id, isRow := jobIDs[name]
			_, isArray := arrays.byName[name]
			switch {
			case isRow && isArray:
				return nil, t.errAt("after", fmt.Errorf("%q is both the id of an earlier row and an array's name", name))
			case isRow:
				j.After = append(j.After, id)
			case isArray:
				j.After = append(j.After, arrays.waitFor(t, name)...)
			default:
				return nil, t.errAt("after", fmt.Errorf("%q is not the id of an earlier row nor the name of an earlier array", name))
			}
		}
		if err := arrays.read(t, &j); err != nil {
			return nil, err
		}
		if _, dup := jobIDs[j.Name]; !dup {
			jobIDs[j.Name] = j.ID
		}
		tr.Jobs = append(tr.Jobs, j)
	}
	arrays.apply(tr.Jobs)
	tr.Notes = append(tr.Notes, fmt.Sprintf("%d users named in the trace", len(tr.Users)-1))
	if n := arrays.note(); n != "" {
		tr.Notes = append(tr.Notes, n)
	}
	return tr, nil
}

// seconds parses column name as seconds: ≥ 0 when zero is true, else > 0.
func (t *table) seconds(name string, zero bool) (d time.Duration, err error) {
	v, ok, err := t.float(name)
	if err == nil && (!ok || v < 0 || (v == 0 && !zero)) {
		want := "> 0"
		if zero {
			want = "≥ 0"
		}
		err = t.errAt(name, fmt.Errorf("%q is not a number of seconds %s", t.str(name), want))
	}
	if err != nil {
		return 0, err
	}
	return seconds(v), nil
}

// parsePriority reads the optional priority column.
func parsePriority(t *table) (int, error) {
	s := strings.ToLower(t.str("priority"))
	switch s {
	case "":
		return scheduler.PriorityNormal, nil
	case "low":
		return scheduler.PriorityLow, nil
	case "normal":
		return scheduler.PriorityNormal, nil
	case "high":
		return scheduler.PriorityHigh, nil
	case "critical":
		return scheduler.PriorityCritical, nil
	}
	p, err := strconv.Atoi(s)
	if err != nil || p < scheduler.PriorityLow || p > scheduler.PriorityCritical {
		return 0, t.errAt("priority", fmt.Errorf("%q is not a priority 1-4 or low, normal, high, critical", s))
	}
	return p, nil
}
