package apiclient

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Submit queues a job. idempotencyKey, when not empty, makes a retry safe.
func (c *Client) Submit(ctx context.Context, req api.SubmitRequest, idempotencyKey string) (*api.Job, error) {
	var out api.Job
	if err := c.DoWith(ctx, "POST", "/api/v1/queue/submit", req, &out, map[string]string{"Idempotency-Key": idempotencyKey}); err != nil {
		return nil, err
	}
	return &out, nil
}

// Queue lists pending and running jobs; mine limits it to the caller's.
func (c *Client) Queue(ctx context.Context, mine bool) (*api.Queue, error) {
	return c.queue(ctx, mine, url.Values{})
}

// QueueTasks is Queue with an array's running tasks listed one by one and
// only its queued tasks as one entry (GET /api/v1/queue?arrays=tasks), as
// Slurm's squeue lists them.
func (c *Client) QueueTasks(ctx context.Context, mine bool) (*api.Queue, error) {
	return c.queue(ctx, mine, url.Values{"arrays": {"tasks"}})
}

// queue reads GET /api/v1/queue with q (and mine).
func (c *Client) queue(ctx context.Context, mine bool, q url.Values) (*api.Queue, error) {
	if mine {
		q.Set("mine", "true")
	}
	var out api.Queue
	if err := c.Do(ctx, "GET", "/api/v1/queue?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RenewLease renews lease id for ttl from now (0: its own TTL), at most the
// policy's cap.
func (c *Client) RenewLease(ctx context.Context, id int64, ttl time.Duration) (*api.Job, error) {
	req := api.RenewRequest{JobID: api.JobRef{ID: id}}
	if ttl > 0 {
		s := int64(ttl / time.Second)
		req.TTLS = &s
	}
	var out api.Job
	if err := c.Do(ctx, "POST", "/api/v1/cluster/gpu-renew", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Cancel cancels a job.
func (c *Client) Cancel(ctx context.Context, id int64) (*api.Job, error) {
	return c.CancelRef(ctx, strconv.FormatInt(id, 10))
}

// CancelRef cancels what ref names, as Slurm's scancel: a job id (an
// array's id: the whole array), "123_4" (task 4 of array 123) or
// "123_[1-3,7]" (those tasks). For an array the answer is its first task
// with the array's summary.
func (c *Client) CancelRef(ctx context.Context, ref string) (*api.Job, error) {
	var out api.Job
	if err := c.Do(ctx, "DELETE", "/api/v1/queue/"+url.PathEscape(ref), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
