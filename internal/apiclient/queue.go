package apiclient

import (
	"context"
	"fmt"
	"net/http"
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
}

// Job is a job as the queue API shows it.
type Job struct {
	ID                 int64      `json:"id"`
	ClientRef          string     `json:"clientRef,omitempty"`
	Name               string     `json:"name"`
	User               string     `json:"user"`
	State              string     `json:"state"`
	Priority           int        `json:"priority"`
	PriorityName       string     `json:"priorityName"`
	RequestedGPUs      int        `json:"requestedGpus"`
	Executor           string     `json:"executor"`
	Command            string     `json:"command,omitempty"`
	QueuedAt           time.Time  `json:"queuedAt"`
	StartedAt          *time.Time `json:"startedAt,omitempty"`
	EndedAt            *time.Time `json:"endedAt,omitempty"`
	ExpectedEndAt      *time.Time `json:"expectedEndAt,omitempty"`
	Position           *int       `json:"position,omitempty"`
	Reason             string     `json:"reason,omitempty"`
	ReasonCode         string     `json:"reasonCode,omitempty"`
	EstimatedStartTime *time.Time `json:"estimatedStartTime,omitempty"`
	EstimatedWaitTime  *float64   `json:"estimatedWaitTime,omitempty"`
	FailureReason      string     `json:"failureReason,omitempty"`
}

// Queue is the body of GET /api/v1/queue.
type Queue struct {
	QueuedJobs  []Job `json:"queuedJobs"`
	RunningJobs []Job `json:"runningJobs"`
	Statistics  struct {
		TotalQueued     int     `json:"totalQueued"`
		AverageWaitTime float64 `json:"averageWaitTime"`
		QueueThroughput float64 `json:"queueThroughput"`
	} `json:"statistics"`
}

// Submit queues a job. idempotencyKey, when not empty, makes a retry safe.
func (c *Client) Submit(ctx context.Context, req SubmitRequest, idempotencyKey string) (*Job, error) {
	var out Job
	if err := c.DoWith(ctx, http.MethodPost, "/api/v1/queue/submit", req, &out, map[string]string{"Idempotency-Key": idempotencyKey}); err != nil {
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
	if err := c.Do(ctx, http.MethodGet, "/api/v1/queue?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Cancel cancels a job.
func (c *Client) Cancel(ctx context.Context, id int64) (*Job, error) {
	var out Job
	if err := c.Do(ctx, http.MethodDelete, fmt.Sprintf("/api/v1/queue/%d", id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
