package api

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Array bounds.
const (
	// MaxArrayTasks is the most tasks one array may have.
	MaxArrayTasks = 10000
	// MaxArrayTaskID is the highest task id.
	MaxArrayTaskID = 4_000_000
)

// ArraySpec is an array's tasks, as Slurm's --array reads them.
type ArraySpec struct {
	// Tasks are the task ids, ascending, each once.
	Tasks []int
	// MaxRunning is how many tasks may run at once ("%8"); 0: no limit.
	MaxRunning int
}

// ParseArray reads Slurm's --array: task ids as a comma-separated list of
// ids ("3"), ranges ("0-99") and ranges with a step ("0-15:4"), then
// optionally "%N", the most tasks running at once: "0-99%8", "1,3,5-7",
// "0-15:4%2". Ids are 0–4,000,000; at most 10,000 tasks. A task listed
// twice counts once.
func ParseArray(text string) (ArraySpec, error) {
	var out ArraySpec
	list, limit, hasLimit := strings.Cut(strings.TrimSpace(text), "%")
	if hasLimit {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 {
			return out, fmt.Errorf("array %q: after %% comes how many tasks may run at once, a number from 1, not %q", text, limit)
		}
		out.MaxRunning = n
	}
	if list == "" {
		return out, fmt.Errorf("array %q: give task ids, like 0-99, 1,3,5 or 0-15:4 (then %%N to run at most N at once)", text)
	}
	for _, item := range strings.Split(list, ",") {
		lo, hi, step, err := arrayItem(item)
		if err != nil {
			return ArraySpec{}, fmt.Errorf("array %q: %w", text, err)
		}
		for id := lo; id <= hi; id += step {
			if len(out.Tasks) >= 2*MaxArrayTasks { // bounds the work on a huge spec
				return ArraySpec{}, fmt.Errorf("array %q: more than %d tasks", text, MaxArrayTasks)
			}
			out.Tasks = append(out.Tasks, id)
		}
	}
	slices.Sort(out.Tasks)
	out.Tasks = slices.Compact(out.Tasks)
	if len(out.Tasks) > MaxArrayTasks {
		return ArraySpec{}, fmt.Errorf("array %q: %d tasks, at most %d", text, len(out.Tasks), MaxArrayTasks)
	}
	return out, nil
}

// arrayItem reads one item of an array's list: "N", "N-M" or "N-M:S".
func arrayItem(item string) (lo, hi, step int, err error) {
	bad := fmt.Errorf("%q is not a task id (0–%d), a range N-M or a range with a step N-M:S", item, MaxArrayTaskID)
	rng, stepText, hasStep := strings.Cut(strings.TrimSpace(item), ":")
	from, to, isRange := strings.Cut(rng, "-")
	if !isRange {
		to = from
	}
	var ok1, ok2 bool
	lo, ok1 = taskID(from)
	hi, ok2 = taskID(to)
	step = 1
	if hasStep {
		if !isRange {
			return 0, 0, 0, bad
		}
		n, err := strconv.Atoi(stepText)
		if err != nil || n < 1 {
			return 0, 0, 0, fmt.Errorf("%q: the step after : must be a number from 1", item)
		}
		step = n
	}
	switch {
	case !ok1 || !ok2:
		return 0, 0, 0, bad
	case hi < lo:
		return 0, 0, 0, fmt.Errorf("%q: the range ends before it starts", item)
	}
	return lo, hi, step, nil
}

// taskID reads a task id: digits, 0 to MaxArrayTaskID.
func taskID(s string) (int, bool) {
	if s == "" || len(s) > 7 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n <= MaxArrayTaskID
}

// String writes the spec in Slurm's form: ranges of consecutive ids
// ("0-9,12"), then "%N".
func (a ArraySpec) String() string {
	var b strings.Builder
	for i := 0; i < len(a.Tasks); {
		j := i
		for j+1 < len(a.Tasks) && a.Tasks[j+1] == a.Tasks[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(a.Tasks[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(a.Tasks[j]))
		}
		i = j + 1
	}
	if a.MaxRunning > 0 {
		b.WriteString("%" + strconv.Itoa(a.MaxRunning))
	}
	return b.String()
}
