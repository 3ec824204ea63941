package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// FormatWaits writes conditions as jobs.waits_for keeps them:
// "ok:12,any:14", "ok:a40" for a whole array.
func FormatWaits(deps []scheduler.Dependency) string {
	parts := make([]string, len(deps))
	for i, d := range deps {
		parts[i] = d.Kind + ":" + strconv.FormatInt(d.JobID, 10)
		if d.Array {
			parts[i] = d.Kind + ":a" + strconv.FormatInt(d.JobID, 10)
		}
	}
	return strings.Join(parts, ",")
}

// ParseWaits reads jobs.waits_for; what it cannot read it skips.
func ParseWaits(s string) []scheduler.Dependency {
	if s == "" {
		return nil
	}
	var out []scheduler.Dependency
	for _, p := range strings.Split(s, ",") {
		kind, id, _ := strings.Cut(p, ":")
		array := strings.HasPrefix(id, "a")
		if n, err := strconv.ParseInt(strings.TrimPrefix(id, "a"), 10, 64); err == nil {
			out = append(out, scheduler.Dependency{Kind: kind, JobID: n, Array: array})
		}
	}
	return out
}

// JobDependency is one recorded condition of a job.
type JobDependency struct {
	bun.BaseModel `bun:"table:job_dependencies"`

	JobID   int64  `bun:"job_id,pk"`
	Kind    string `bun:"kind,pk"`
	OnJobID int64  `bun:"on_job_id,pk"`
	// OnArray: OnJobID is an array's, and the condition is on all its tasks.
	OnArray bool       `bun:"on_array,pk"`
	MetAt   *time.Time `bun:"met_at"`
}

// DependenciesOf returns job id's conditions in (job, kind) order.
func DependenciesOf(ctx context.Context, db bun.IDB, id int64) ([]JobDependency, error) {
	var out []JobDependency
	if err := db.NewSelect().Model(&out).Where("job_id = ?", id).OrderExpr("on_job_id, on_array, kind").Scan(ctx); err != nil {
		return nil, fmt.Errorf("models: dependencies of job %d: %w", id, err)
	}
	return out, nil
}
