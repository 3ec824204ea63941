package models

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Session kinds: what server an interactive session runs.
const (
	SessionJupyter     = "jupyter"
	SessionTensorBoard = "tensorboard"
	SessionWeb         = "web"
)

// SessionKinds lists every session kind.
var SessionKinds = []string{SessionJupyter, SessionTensorBoard, SessionWeb}

// SessionJobTypePrefix starts the job type of every session's job
// ("session-jupyter"): the scoring model learns sessions apart from batch
// jobs, the usage page counts GPU-hours by it, and the node executor knows
// a session's start from it without another query.
const SessionJobTypePrefix = "session-"

// SessionKindOf returns the session kind of a job of type jobType, or "".
func SessionKindOf(jobType string) string {
	k, ok := strings.CutPrefix(jobType, SessionJobTypePrefix)
	if !ok {
		return ""
	}
	for _, known := range SessionKinds {
		if k == known {
			return k
		}
	}
	return ""
}

// InteractiveSession is what a session has beyond its job: its kind, where
// the node agent serving it listens, and its activity.
type InteractiveSession struct {
	bun.BaseModel `bun:"table:interactive_sessions,alias:isess"`

	JobID int64  `bun:"job_id,pk"`
	Kind  string `bun:"kind,notnull"`
	// AgentURL is the node agent's session listener ("http://host:9124"),
	// TokenPrefix the node token whose hash signs requests to it; both set
	// when the agent reports the server ready.
	NodeID         *int64     `bun:"node_id"`
	AgentURL       string     `bun:"agent_url,notnull"`
	TokenPrefix    string     `bun:"token_prefix,notnull"`
	ReadyAt        *time.Time `bun:"ready_at"`
	LastActivityAt *time.Time `bun:"last_activity_at"`
	CreatedAt      time.Time  `bun:"created_at,notnull"`
}

// SessionJob is a session with its job.
type SessionJob struct {
	Session InteractiveSession
	Job     Job
}

// CreateInteractive records that job jobID (created in the same transaction)
// is a session of kind.
func CreateInteractive(ctx context.Context, db bun.IDB, jobID int64, kind string, now time.Time) error {
	row := &InteractiveSession{JobID: jobID, Kind: kind, CreatedAt: now}
	if _, err := db.NewInsert().Model(row).Exec(ctx); err != nil {
		return fmt.Errorf("models: session of job %d: %w", jobID, err)
	}
	return nil
}

// GetInteractive returns the session of job id with its job.
func GetInteractive(ctx context.Context, db bun.IDB, id int64) (*SessionJob, error) {
	out := new(SessionJob)
	if err := db.NewSelect().Model(&out.Session).Where("job_id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err, fmt.Sprintf("session %d", id))
	}
	j, err := GetJob(ctx, db, id)
	if err != nil {
		return nil, err
	}
	out.Job = *j
	return out, nil
}

// ListInteractive returns the sessions of owner (0: everyone's), newest
// first; live only unless all.
func ListInteractive(ctx context.Context, db bun.IDB, owner int64, all bool, limit int64) ([]SessionJob, error) {
	var rows []InteractiveSession
	q := db.NewSelect().Model(&rows).Join("JOIN jobs AS job ON job.id = isess.job_id").OrderExpr("isess.job_id DESC").Limit(limit)
	if owner != 0 {
		q = q.Where("job.owner_id = ?", owner)
	}
	if !all {
		q = q.Where("job.state IN (?)", bun.In(liveStates))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: list sessions: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.JobID
	}
	var jobs []Job
	if err := db.NewSelect().Model(&jobs).Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: list sessions' jobs: %w", err)
	}
	byID := make(map[int64]Job, len(jobs))
	for _, j := range jobs {
		byID[j.ID] = j
	}
	out := make([]SessionJob, 0, len(rows))
	for _, r := range rows {
		out = append(out, SessionJob{Session: r, Job: byID[r.JobID]})
	}
	return out, nil
}

// liveStates are the states of a job not yet ended.
var liveStates = []string{JobQueued, JobScheduled, JobAllocating, JobRunning, JobPreempted}

// MarkInteractiveReady records that the server of session id, running on
// nodeID, answers, and where its agent listens, with its last activity
// (nil: now): it reports whether this is
// the first time (so the caller notifies the owner once). A report for a
// job that is not a session running on that node is ErrNotFound.
func MarkInteractiveReady(ctx context.Context, db bun.IDB, id, nodeID int64, agentURL, tokenPrefix string, activity *time.Time, now time.Time) (bool, error) {
	var first bool
	if activity == nil || activity.After(now) {
		activity = &now
	}
	err := db.NewRaw(`UPDATE interactive_sessions AS s SET node_id = ?, agent_url = ?, token_prefix = ?,
	        ready_at = COALESCE(s.ready_at, ?), last_activity_at = GREATEST(s.last_activity_at, ?)
	    WHERE s.job_id = ? AND EXISTS (SELECT 1 FROM allocations a JOIN gpus g ON g.id = a.gpu_id
	        WHERE a.job_id = s.job_id AND a.released_at IS NULL AND g.node_id = ?)
	    RETURNING (SELECT ready_at IS NULL FROM interactive_sessions WHERE job_id = s.job_id)`,
		nodeID, agentURL, tokenPrefix, now, *activity, id, nodeID).Scan(ctx, &first)
	if err != nil {
		return false, notFound(err, fmt.Sprintf("session %d on node %d", id, nodeID))
	}
	return first, nil
}

// TouchInteractive records activity on session id at now, at most once per
// every: a busy proxy writes seldom.
func TouchInteractive(ctx context.Context, db bun.IDB, id int64, now time.Time, every time.Duration) error {
	_, err := db.NewUpdate().Model((*InteractiveSession)(nil)).Set("last_activity_at = ?", now).
		Where("job_id = ?", id).Where("last_activity_at IS NULL OR last_activity_at < ?", now.Add(-every)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("models: activity of session %d: %w", id, err)
	}
	return nil
}

// InteractiveSigningKey returns the key that signs the control plane's
// requests to the agent of node nodeID: the stored hash of its live node
// token with prefix (which the agent computes from the token it holds).
func InteractiveSigningKey(ctx context.Context, db bun.IDB, nodeID int64, prefix string, now time.Time) ([]byte, error) {
	t := new(APIToken)
	err := db.NewSelect().Model(t).Where("prefix = ?", prefix).Where("node_id = ?", nodeID).
		Where("revoked_at IS NULL").Where("expires_at IS NULL OR expires_at > ?", now).Scan(ctx)
	if err != nil {
		return nil, notFound(err, "node token "+prefix)
	}
	return t.Hash, nil
}

// NodeTokenKey is InteractiveSigningKey's key as the agent derives it from its
// plain node token.
func NodeTokenKey(plain string) []byte {
	sum := sha256.Sum256([]byte(plain))
	return sum[:]
}
