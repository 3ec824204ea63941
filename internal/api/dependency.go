package api

import (
	"fmt"
	"strconv"
	"strings"
)

// Dependency is one condition a submission waits for (Slurm's
// --dependency): the end of job JobID. Kind is DependOK (it ends
// completed), DependAny (it ends, however), DependNotOK (it ends failed,
// canceled or timeout) or DependSingleton (no JobID: the owner's earlier
// jobs of the same name end, however, so one runs at a time).
type Dependency struct {
	Kind  string `json:"kind"`
	JobID int64  `json:"job_id,omitempty"`
	// ArrayTaskID, with JobID an array's id, is one task of it ("123_4"
	// in Slurm's words); nil: the job, or every task of the array (a
	// JobID that is an array's id means the whole array, as in Slurm).
	ArrayTaskID *int `json:"array_task_id,omitempty"`
	// Array is set in answers on a condition on a whole array.
	Array bool `json:"array,omitempty"`
}

// Dependency kinds.
const (
	DependOK        = "ok"
	DependAny       = "any"
	DependNotOK     = "notok"
	DependSingleton = "singleton"
)

// String writes d in Slurm's words: "afterok:12", "afterany:7_3",
// "singleton".
func (d Dependency) String() string {
	if d.Kind == DependSingleton {
		return "singleton"
	}
	return "after" + d.Kind + ":" + d.target()
}

// target is the job d waits for: "12", or "7_3" for a task of array 7.
func (d Dependency) target() string {
	s := strconv.FormatInt(d.JobID, 10)
	if d.ArrayTaskID != nil {
		s += "_" + strconv.Itoa(*d.ArrayTaskID)
	}
	return s
}

// ParseAfter reads gpusched's --after: "ok:ID[,ID…]", "any:ID",
// "notok:ID", or bare ids ("ID[,ID…]", as any). An ID may name one task of
// an array as Slurm does ("123_4").
func ParseAfter(text string) ([]Dependency, error) {
	kind, ids, ok := strings.Cut(strings.TrimSpace(text), ":")
	if !ok {
		kind, ids = DependAny, kind
	}
	switch kind {
	case DependOK, DependAny, DependNotOK:
	default:
		return nil, fmt.Errorf("--after %q: want ok:ID, any:ID, notok:ID or ID (ids separated by commas)", text)
	}
	return dependOn(kind, strings.Split(ids, ","), text)
}

// ParseSlurmDependency reads Slurm's --dependency: conditions separated by
// commas (all must hold), each "afterok:ID[:ID…]", "afterany:…",
// "afternotok:…" or "singleton". Slurm's "?" (any of them), after
// (start), aftercorr and afterburstbuffer are refused with a sentence.
func ParseSlurmDependency(text string) ([]Dependency, error) {
	text = strings.TrimSpace(text)
	if strings.Contains(text, "?") {
		return nil, fmt.Errorf("--dependency %q: conditions joined by ? (any of them) are not supported; join them with , (all of them)", text)
	}
	var out []Dependency
	for _, cond := range strings.Split(text, ",") {
		name, ids, _ := strings.Cut(cond, ":")
		switch name {
		case "singleton":
			if ids != "" {
				return nil, fmt.Errorf("--dependency %q: singleton takes no job ids", text)
			}
			out = append(out, Dependency{Kind: DependSingleton})
			continue
		case "afterok", "afterany", "afternotok":
		case "after", "aftercorr", "afterburstbuffer":
			return nil, fmt.Errorf("--dependency %q: %s is not supported; use afterok, afterany, afternotok or singleton", text, name)
		default:
			return nil, fmt.Errorf("--dependency %q: %q is not afterok, afterany, afternotok or singleton", text, name)
		}
		ds, err := dependOn(strings.TrimPrefix(name, "after"), strings.Split(ids, ":"), text)
		if err != nil {
			return nil, err
		}
		out = append(out, ds...)
	}
	return out, nil
}

// dependOn makes a dependency of kind on each of ids ("12", "7_3").
func dependOn(kind string, ids []string, text string) ([]Dependency, error) {
	var out []Dependency
	for _, s := range ids {
		job, task, isTask := strings.Cut(strings.TrimSpace(s), "_")
		id, err := strconv.ParseInt(job, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("%q: %q is not a job id", text, s)
		}
		d := Dependency{Kind: kind, JobID: id}
		if isTask {
			n, err := strconv.Atoi(task)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%q: %q is not an array task (ID_TASK)", text, s)
			}
			d.ArrayTaskID = &n
		}
		out = append(out, d)
	}
	return out, nil
}
