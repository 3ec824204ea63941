package views

import (
	"net/url"
	"time"
)

// Queue is the queue page's model: jobs waiting in scheduler order, and
// jobs holding GPUs.
type Queue struct {
	Pending   []QueueJob
	Running   []QueueJob
	Mine      bool // only the signed-in user's jobs are shown
	Filter    QueueFilter
	UpdatedAt time.Time
	Form      SubmitForm
	CSRF      string // for the row forms without JavaScript
}

// QueueFilter narrows the queue page; it travels in the query string so
// that live refreshes and actions keep it.
type QueueFilter struct {
	Mine    bool   // only the viewer's jobs
	Team    bool   // only the viewer's team's jobs
	State   string // "" (waiting and running), "waiting" or "running"
	HasTeam bool   // the viewer belongs to a team (the filter is offered)
}

// Query is the filter as a query string ("" or "?mine=1&state=running").
func (f QueueFilter) Query() string {
	v := url.Values{}
	if f.Mine {
		v.Set("mine", "1")
	}
	if f.Team {
		v.Set("team", "1")
	}
	if f.State != "" {
		v.Set("state", f.State)
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// HistoryQuery is the history page's query for the same people's ended
// jobs (the queue's state filter has no meaning there).
func (f QueueFilter) HistoryQuery() string {
	return QueueFilter{Mine: f.Mine, Team: f.Team}.Query()
}

// QueueJob is one row of the queue page.
type QueueJob struct {
	ID       int64
	Name     string
	User     string
	State    string
	GPUs     int
	Priority string // "low" … "critical"
	Executor string
	// RunsOn is where a job holding GPUs holds them, for people:
	// "sim-node-1 · GPUs 4, 5" (PlacesWords); empty until placed.
	RunsOn      string
	Position    int    // pending: 1 = next; 0 unknown
	Code        string // pending: the scheduler's reason code
	Reason      string // pending: the scheduler's reason in words
	ETA         time.Time
	Submitted   time.Time
	Started     time.Time
	ExpectedEnd time.Time
	CanCancel   bool   // the viewer owns it or is an admin
	GPUNames    string // running: its GPUs as node:index ("sim-node-1:4,5")
	// Array, when set, makes the row stand for an array's tasks (ID is
	// the array's id: cancel cancels them all).
	Array *QueueArray
}

// QueueArray is an array of tasks as one row of the queue page shows it,
// with its first tasks to expand.
type QueueArray struct {
	Spec      string // "0-99%8"
	TaskCount int
	Counts    string // "8 running, 90 queued, 2 completed"
	Tasks     []QueueTask
	More      int // tasks beyond Tasks
}

// QueueTask is one task of an array.
type QueueTask struct {
	ID    int64 // its job's id
	Task  int
	State string
}

// SubmitForm is the queue page's form to submit a job, with what was
// entered and the outcome.
type SubmitForm struct {
	Name     string
	GPUCount int
	GPUModel string
	Command  string
	Duration string // the estimate: "90m", "2h"
	// TimeLimit is the job's limit, as people type it ("2h", "1-00:00").
	TimeLimit string
	// Array is an array spec ("0-9%3"); After the conditions to wait for
	// ("ok:41", "any:12,13 notok:14", or Slurm's "afterok:41").
	Array    string
	After    string
	Priority string
	Executor string // "node" or "lease"
	Error    string
	DoneID   int64 // the job just submitted
	Models   []string
	Admin    bool // may choose critical
	Filter   QueueFilter
	CSRF     string
}
