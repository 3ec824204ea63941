package apiclient

import (
	"context"
	"fmt"
	"net/url"
	"time"
)

// SubmitRequest is the body of POST /api/v1/queue/submit.
type SubmitRequest struct {
	Command           string            `json:"command,omitempty"`
	GPUCount          int               `json:"gpu_count"`
	MemoryGB          *float64          `json:"memory_gb,omitempty"`
	GPUModel          string            `json:"gpu_model,omitempty"`
	Priority          any               `json:"priority,omitempty"`           // 1–4 or "low"…"critical"
	EstimatedDuration any               `json:"estimated_duration,omitempty"` // seconds or "2h"
	Name              string            `json:"name,omitempty"`
	AllowMultiNode    bool              `json:"allow_multi_node,omitempty"`
	Preemptible       *bool             `json:"preemptible,omitempty"`
	Executor          string            `json:"executor,omitempty"`
	Workdir           string            `json:"workdir,omitempty"`
	Env               map[string]string `json:"env,omitempty"`
	JobType           string            `json:"job_type,omitempty"`
	Checkpoint        bool              `json:"checkpoint,omitempty"` // saves on SIGTERM, resumes
	StopGrace         any               `json:"stop_grace,omitempty"` // seconds or "90s"
}

// Job is a job as the queue API shows it.
type Job struct {
	ID                 int64      `json:"id"`
	ClientRef          string     `json:"client_ref,omitempty"`
	Name               string     `json:"name"`
	User               string     `json:"user"`
	State              string     `json:"state"`
	Priority           int        `json:"priority"`
	PriorityName       string     `json:"priority_name"`
	RequestedGPUs      int        `json:"requested_gpus"`
	Executor           string     `json:"executor"`
	Command            string     `json:"command,omitempty"`
	QueuedAt           time.Time  `json:"queued_at"`
	StartedAt          *time.Time `json:"started_at,omitempty"`
	EndedAt            *time.Time `json:"ended_at,omitempty"`
	ExpectedEndAt      *time.Time `json:"expected_end_at,omitempty"`
	Position           *int       `json:"position,omitempty"`
	Reason             string     `json:"reason,omitempty"`
	ReasonCode         string     `json:"reason_code,omitempty"`
	EstimatedStartTime *time.Time `json:"estimated_start_time,omitempty"`
	EstimatedWaitTime  *float64   `json:"estimated_wait_time,omitempty"`
	FailureReason      string     `json:"failure_reason,omitempty"`
	// A lease's time: when it runs out unless renewed, and its TTL.
	LeaseExpiresAt *time.Time `json:"lease_expires_at,omitempty"`
	LeaseTTLS      *int64     `json:"lease_ttl_s,omitempty"`
}

// Queue is the body of GET /api/v1/queue.
type Queue struct {
	QueuedJobs  []Job `json:"queued_jobs"`
	RunningJobs []Job `json:"running_jobs"`
	Statistics  struct {
		TotalQueued     int     `json:"total_queued"`
		AverageWaitTime float64 `json:"average_wait_time"`
		QueueThroughput float64 `json:"queue_throughput"`
	} `json:"statistics"`
}

// Submit queues a job. idempotencyKey, when not empty, makes a retry safe.
func (c *Client) Submit(ctx context.Context, req SubmitRequest, idempotencyKey string) (*Job, error) {
	var out Job
	if err := c.DoWith(ctx, "POST", "/api/v1/queue/submit", req, &out, map[string]string{"Idempotency-Key": idempotencyKey}); err != nil {
		return nil, err
	}
	return &out, nil
}

// Queue lists pending and running jobs; mine limits it to the caller's.
func (c *Client) Queue(ctx context.Context, mine bool) (*Queue, error) {
	q := url.Values{}
	if mine {
		q.Set("mine", "true")
	}
	var out Queue
	if err := c.Do(ctx, "GET", "/api/v1/queue?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RenewRequest is the body of POST /api/v1/cluster/gpu-renew.
type RenewRequest struct {
	JobID int64  `json:"job_id"`
	TTLS  *int64 `json:"ttl_s,omitempty"` // nil: the lease's own TTL
}

// RenewLease renews lease id for ttl from now (0: its own TTL), at most the
// policy's cap.
func (c *Client) RenewLease(ctx context.Context, id int64, ttl time.Duration) (*Job, error) {
	req := RenewRequest{JobID: id}
	if ttl > 0 {
		s := int64(ttl / time.Second)
		req.TTLS = &s
	}
	var out Job
	if err := c.Do(ctx, "POST", "/api/v1/cluster/gpu-renew", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Cancel cancels a job.
func (c *Client) Cancel(ctx context.Context, id int64) (*Job, error) {
	var out Job
	if err := c.Do(ctx, "DELETE", fmt.Sprintf("/api/v1/queue/%d", id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
