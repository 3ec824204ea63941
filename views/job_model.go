package views

import (
	"fmt"
	"time"
)

// JobDetail is the job page's model.
type JobDetail struct {
	ID       int64
	Name     string
	Owner    string
	State    string
	Priority string // "low" … "critical"
	Spec     []Field
	// While pending: the scheduler's word.
	Position int
	Code     string
	Reason   string
	ETA      time.Time
	// Once started.
	Started     time.Time
	Ended       time.Time
	ExpectedEnd time.Time
	Timeline    []JobEventView
	GPUs        []JobGPUView
	CanAct      bool // owner or admin, and the job has not ended
	CanSeeLogs  bool // owner or admin
	Log         JobLogView
	Now         time.Time
	CSRF        string // for the action forms
	Admin       bool   // the viewer is an admin (may pick critical)
	// Idle policy: since when its GPUs sit idle, once warned,
	// and when they will be given back (zero: not under a release policy).
	IdleSince, ReclaimAt time.Time
}

// Field is one labelled value of a definition list.
type Field struct{ Label, Value string }

// JobEventView is one state move of the timeline.
type JobEventView struct {
	At       time.Time
	From, To string
	Reason   string
	Actor    string
}

// JobGPUView is one GPU the job holds or held.
type JobGPUView struct {
	Node     string
	Index    int
	Model    string
	Since    time.Time
	Released time.Time // zero: held now
}

// JobLogView is the tail of the job's output.
type JobLogView struct {
	JobID   int64
	Text    string
	Ran     bool // the job ran on a node (there is output to show, or will be)
	Done    bool // the job ended: nothing more will come
	Skipped int64
	// Part is the part of a multi-node job shown (its node rank), of
	// Parts (1 on one node; 0 not known yet); PartNodes names each part's
	// node once the run started on several.
	Part, Parts int
	PartNodes   []string
}

// PartLabel names part i for the part selector: "Part 1 · gpu-b".
func (l JobLogView) PartLabel(i int) string {
	label := fmt.Sprintf("Part %d", i)
	if i < len(l.PartNodes) && l.PartNodes[i] != "" {
		label += " · " + l.PartNodes[i]
	}
	return label
}

// Pending reports whether the job waits in the queue.
func (j JobDetail) Pending() bool { return j.State == "queued" }
