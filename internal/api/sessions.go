package api

import (
	"strconv"
	"time"
)

// SessionRequest is the body of POST /api/v1/sessions: an interactive
// session (a Jupyter notebook, TensorBoard, or any web server) on GPUs.
type SessionRequest struct {
	Kind     string `json:"kind"`                // jupyter, tensorboard or web
	GPUCount *int   `json:"gpu_count,omitempty"` // default 1
	GPUType  string `json:"gpu_type,omitempty"`  // matches part of the model's name
	// GPUShare and GPUMemory ask for part of a shared GPU, as a submission's
	// do; with no GPUs asked at all, the policy's session_gpu_share (if
	// set) gives the session a share, else one whole GPU.
	GPUShare  *float64 `json:"gpu_share,omitempty"`
	GPUMemory string   `json:"gpu_memory,omitempty"`
	TimeLimit Seconds  `json:"time_limit,omitempty"`
	Workdir   string   `json:"workdir,omitempty"` // on the node; default the user's home
	// Command is the server for kind "web": any program that serves HTTP on
	// 127.0.0.1:$PORT. For tensorboard it may name the log directory's
	// flags; for jupyter it must be empty.
	Command string `json:"command,omitempty"`
	Name    string `json:"name,omitempty"`
}

// Session is an interactive session as the API shows it. URL is where its
// owner opens it (through the control plane's proxy), set once it is ready.
type Session struct {
	ID             int64      `json:"id"`
	Kind           string     `json:"kind"`
	State          string     `json:"state"`
	Ready          bool       `json:"ready"`
	URL            string     `json:"url"`
	User           string     `json:"user"`
	Name           string     `json:"name,omitempty"`
	GPUCount       int        `json:"gpu_count"`
	GPUModel       string     `json:"gpu_type,omitempty"`
	Workdir        string     `json:"workdir,omitempty"`
	TimeLimitS     *int64     `json:"time_limit_seconds,omitempty"`
	QueuePosition  *int       `json:"queue_position,omitempty"`
	PendingReason  string     `json:"pending_reason,omitempty"`
	EstimatedStart *time.Time `json:"estimated_start_at,omitempty"`
	SubmittedAt    time.Time  `json:"submitted_at"`
	StartedAt      *time.Time `json:"started_at,omitempty"`
	ReadyAt        *time.Time `json:"ready_at,omitempty"`
	LastActivityAt *time.Time `json:"last_activity_at,omitempty"`
	EndedAt        *time.Time `json:"ended_at,omitempty"`
	StopReason     string     `json:"stop_reason,omitempty"`
}

// SessionList is the answer to GET /api/v1/sessions.
type SessionList struct {
	Sessions []Session `json:"sessions"`
}

// SessionStart tells a node agent that a start command runs a session's
// server: the agent gives it a free loopback port in PORT, waits until it
// answers at ProbePath, reports it ready, and forwards the control plane's
// requests for /s/{job_id}/ to it (with that prefix removed when
// StripPrefix).
type SessionStart struct {
	Kind        string `json:"kind"`
	ProbePath   string `json:"probe_path"`
	StripPrefix bool   `json:"strip_prefix,omitempty"`
}

// SessionReady is a node agent's report that a session's server answers:
// POST /api/v1/nodes/{id}/sessions/{job}/ready.
type SessionReady struct {
	// AgentURL is where the agent's session listener is reached by the
	// control plane ("http://10.0.0.5:9124").
	AgentURL string `json:"agent_url"`
	// TokenPrefix names the node token the agent holds: the control plane
	// signs its requests with that token's hash.
	TokenPrefix string `json:"token_prefix"`
	// LastActivity is the server's own last activity (Jupyter's
	// /api/status, or now while a kernel runs code); the idle policy counts
	// it as use of the session's GPUs.
	LastActivity *time.Time `json:"last_activity,omitempty"`
}

// Session proxy signing: the control plane sends SessionAuthHeader =
// "<unix seconds>.<hex HMAC-SHA256(key, "<job id>\n<unix seconds>")>" where
// the key is SHA-256 of the node's token.
const SessionAuthHeader = "X-Gpusched-Session-Auth"

// SessionPath is the proxy path of session id.
func SessionPath(id int64) string { return "/s/" + strconv.FormatInt(id, 10) + "/" }
