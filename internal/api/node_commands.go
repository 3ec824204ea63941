package api

import "strconv"

// StartJob is a start command's order: run Command for job JobID on the
// GPUs at these indices.
type StartJob struct {
	JobID    int64             `json:"job_id"`
	Name     string            `json:"name,omitempty"`
	Command  string            `json:"command"`
	Workdir  string            `json:"workdir,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Owner    string            `json:"owner"`               // the scheduler user's email
	UnixUser string            `json:"unix_user,omitempty"` // who to run as when the agent is root
	GPUs     []int             `json:"gpus"`                // indices on the node
	GPUUUIDs []string          `json:"gpu_uuids,omitempty"`
	// Array is set for a task of an array: the run sees it as
	// GPUSCHED_ARRAY_* (and Slurm's SLURM_ARRAY_*).
	Array *ArrayTask `json:"array,omitempty"`
	// Part is set for one part of a job that spans nodes: the run sees it
	// as MASTER_ADDR, MASTER_PORT, NODE_RANK, WORLD_SIZE and GPUSCHED_*
	// (and Slurm's per-node variables).
	Part *JobPart `json:"part,omitempty"`
	// Session is set for an interactive session's server (sessions.go).
	Session *SessionStart `json:"session,omitempty"`
}

// ArrayTask is which task of which array a run is.
type ArrayTask struct {
	JobID     int64 `json:"job_id"`  // the array's id: its first task's job id
	TaskID    int   `json:"task_id"` // this task's id
	TaskCount int   `json:"task_count"`
	TaskMin   int   `json:"task_min"`
	TaskMax   int   `json:"task_max"`
}

// StopJob is a stop command's order: end the run started by StartCommandID,
// SIGTERM to its process group, SIGKILL after GraceS seconds.
type StopJob struct {
	StartCommandID int64  `json:"start_command_id"`
	State          string `json:"state"` // what the job becomes: canceled, preempted, lost
	Reason         string `json:"reason"`
	GraceS         int    `json:"grace_s"`
}

// NodeCommand is one order for a node agent; exactly one of Start and Stop
// is set, as Kind says. Commands are answered by ID; one delivered twice
// must be carried out once.
type NodeCommand struct {
	ID    int64     `json:"id"`
	Kind  string    `json:"kind"` // start or stop
	JobID int64     `json:"job_id"`
	Start *StartJob `json:"start,omitempty"`
	Stop  *StopJob  `json:"stop,omitempty"`
}

// NodeCommands is the answer to GET /api/v1/nodes/{id}/commands.
type NodeCommands struct {
	Commands []NodeCommand `json:"commands"`
}

// CommandResult answers a command. For a start: OK with the PID when the
// process runs; for a stop: OK once signalled, Running false when no such
// process runs here.
type CommandResult struct {
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
	PID     int    `json:"pid,omitempty"`
	Running bool   `json:"running"`
	// MasterAddr and MasterPort answer the start of a multi-node job's
	// first part: the address its agent reports and the free port it
	// chose, which the other parts are started with.
	MasterAddr string `json:"master_addr,omitempty"`
	MasterPort int    `json:"master_port,omitempty"`
	// StepPort is where the first part of a multi-node batch job serves
	// its script's steps (srun) to the other parts.
	StepPort int `json:"step_port,omitempty"`
}

// JobExit reports how the run of a start command ended.
type JobExit struct {
	ExitCode *int   `json:"exit_code,omitempty"`
	Signal   string `json:"signal,omitempty"`
	Lost     bool   `json:"lost,omitempty"` // the agent lost track of it (restart, process gone)
	Message  string `json:"message,omitempty"`
}

// LogChunk is output of a run from byte Offset on.
type LogChunk struct {
	Offset int64  `json:"offset"`
	Data   []byte `json:"data"`
}

// Env is what a task's run sees of its array: GPUSCHED_ARRAY_JOB_ID,
// _TASK_ID, _TASK_COUNT, _TASK_MIN, _TASK_MAX, and the same as Slurm's
// SLURM_ARRAY_*.
func (a *ArrayTask) Env() map[string]string {
	out := map[string]string{}
	for _, prefix := range []string{"GPUSCHED_ARRAY_", "SLURM_ARRAY_"} {
		out[prefix+"JOB_ID"] = strconv.FormatInt(a.JobID, 10)
		out[prefix+"TASK_ID"] = strconv.Itoa(a.TaskID)
		out[prefix+"TASK_COUNT"] = strconv.Itoa(a.TaskCount)
		out[prefix+"TASK_MIN"] = strconv.Itoa(a.TaskMin)
		out[prefix+"TASK_MAX"] = strconv.Itoa(a.TaskMax)
	}
	return out
}
