package sim

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// csvArray is one array of a plain CSV trace as read so far.
type csvArray struct {
	id       int64   // the ID of its first task
	tasks    []int64 // the IDs of its tasks, in file order
	limit    int     // its %N; 0 none
	limitAt  int     // the line that gave limit; 0 none gave one
	waitedAt int     // the first line whose after named the whole array; 0 none
}

// csvArrays are the arrays of a plain CSV trace by name, in order of
// their first task.
type csvArrays struct {
	byName map[string]*csvArray
	names  []string
}

// read reads the optional array and array_max_running columns of the
// current row into j: the array's name (tasks of one array share it) and
// its %N (a whole number ≥ 0, "%" before it allowed; the rows of one array
// give the same or leave it empty). A task may not join an array that an
// earlier row waited for as a whole.
func (a *csvArrays) read(t *table, j *Job) error {
	name, raw := t.str("array"), t.str("array_max_running")
	if name == "" {
		if raw != "" {
			return t.errAt("array_max_running", errors.New("a %N limit needs an array: the array column is empty"))
		}
		return nil
	}
	arr := a.byName[name]
	if arr == nil {
		if a.byName == nil {
			a.byName = map[string]*csvArray{}
		}
		arr = &csvArray{id: j.ID}
		a.byName[name] = arr
		a.names = append(a.names, name)
	}
	if arr.waitedAt > 0 {
		return t.errAt("array", fmt.Errorf("array %q gains a task after line %d waited for all its tasks", name, arr.waitedAt))
	}
	if raw != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(raw, "%"))
		if err != nil || n < 0 {
			return t.errAt("array_max_running", fmt.Errorf("%q is not a %%N limit: a whole number of tasks ≥ 0 (0: none)", raw))
		}
		if arr.limitAt > 0 && n != arr.limit {
			return t.errAt("array_max_running", fmt.Errorf("array %q runs at most %d tasks at once from line %d, not %d", name, arr.limit, arr.limitAt, n))
		}
		arr.limit, arr.limitAt = n, t.line
	}
	arr.tasks = append(arr.tasks, j.ID)
	j.ArrayID = arr.id
	return nil
}

// waitFor is what a row's after entry means when it names array name
// rather than a row: every task of the array so far (as the server's
// afterok on an array). The array takes no task after this row.
func (a *csvArrays) waitFor(t *table, name string) []int64 {
	arr := a.byName[name]
	if arr.waitedAt == 0 {
		arr.waitedAt = t.line
	}
	return slices.Clone(arr.tasks)
}

// apply gives every task its array's %N, once the whole file is read.
func (a *csvArrays) apply(jobs []Job) {
	limits := make(map[int64]int, len(a.byName))
	for _, arr := range a.byName {
		limits[arr.id] = arr.limit
	}
	for i := range jobs {
		if j := &jobs[i]; j.ArrayID != 0 {
			j.ArrayMaxRunning = limits[j.ArrayID]
		}
	}
}

// note says how many arrays and tasks the trace has, for the report header;
// "" without arrays.
func (a *csvArrays) note() string {
	if len(a.names) == 0 {
		return ""
	}
	tasks, limited := 0, 0
	for _, arr := range a.byName {
		tasks += len(arr.tasks)
		if arr.limit > 0 {
			limited++
		}
	}
	return fmt.Sprintf("job arrays: %d, tasks in them: %d, arrays with a %%N limit: %d", len(a.names), tasks, limited)
}
