package views

import "time"

// Queue is the queue page's model: jobs waiting in scheduler order, and
// jobs holding GPUs.
type Queue struct {
	Pending   []QueueJob
	Running   []QueueJob
	Mine      bool // only the signed-in user's jobs are shown
	UpdatedAt time.Time
}

// QueueJob is one row of the queue page.
type QueueJob struct {
	ID          int64
	Name        string
	User        string
	State       string
	GPUs        int
	Priority    string // "low" … "critical"
	Executor    string
	Position    int    // pending: 1 = next; 0 unknown
	Code        string // pending: the scheduler's reason code
	Reason      string // pending: the scheduler's reason in words
	ETA         time.Time
	Submitted   time.Time
	Started     time.Time
	ExpectedEnd time.Time
	CanCancel   bool // the viewer owns it or is an admin
}
