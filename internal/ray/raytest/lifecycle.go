package raytest

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
)

// FailMarker in an entrypoint makes the job end FAILED with exit code 1
// instead of SUCCEEDED.
const FailMarker = "--fake-fail"

// status is where j stands now, and when it entered that status.
func (s *Server) status(j *job) (string, time.Time) {
	now := s.Now()
	started := j.submitted.Add(s.PendingFor)
	ended := started.Add(s.RunFor)
	switch {
	case !j.stoppedAt.IsZero() && j.stoppedAt.Before(ended):
		return ray.StatusStopped, j.stoppedAt
	case now.Before(started):
		return ray.StatusPending, j.submitted
	case now.Before(ended):
		return ray.StatusRunning, started
	case strings.Contains(j.req.Entrypoint, FailMarker):
		return ray.StatusFailed, ended
	}
	return ray.StatusSucceeded, ended
}

func (s *Server) details(id string) ray.JobDetails {
	j := s.jobs[id]
	status, since := s.status(j)
	d := ray.JobDetails{Type: "SUBMISSION", SubmissionID: id, Status: status, Entrypoint: j.req.Entrypoint,
		Metadata: j.req.Metadata, RuntimeEnv: j.req.RuntimeEnv, StartTime: j.submitted.UnixMilli(),
		EntrypointNumCPUs: j.req.EntrypointNumCPUs, EntrypointNumGPUs: j.req.EntrypointNumGPUs,
		EntrypointMemory: j.req.EntrypointMemory, EntrypointResources: j.req.EntrypointResources}
	if status != ray.StatusPending {
		rid := fmt.Sprintf("%08x", j.submitted.UnixNano()&0xffffffff)
		d.JobID = &rid
	}
	switch status {
	case ray.StatusPending:
		d.Message = "Job has not started yet. It may be waiting for resources (CPUs, GPUs, memory, custom resources) to become available."
	case ray.StatusRunning:
		d.Message = "Job is currently running."
	case ray.StatusSucceeded:
		d.Message, d.DriverExitCode = "Job finished successfully.", new(int)
	case ray.StatusFailed:
		code := 1
		d.Message, d.ErrorType, d.DriverExitCode = "Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):\nerror", "JOB_ENTRYPOINT_COMMAND_ERROR", &code
	case ray.StatusStopped:
		d.Message = "Job was intentionally stopped."
	}
	if ray.IsTerminal(status) {
		d.EndTime = since.UnixMilli()
	}
	return d
}

// logs is the output so far: a line at start, one per LogEvery while it
// runs, and a last line.
func (s *Server) logs(j *job) string {
	status, since := s.status(j)
	started := j.submitted.Add(s.PendingFor)
	if status == ray.StatusPending || (status == ray.StatusStopped && !since.After(started)) {
		return ""
	}
	every := s.LogEvery
	if every <= 0 {
		every = max(s.RunFor/4, time.Millisecond)
	}
	end := s.Now()
	if ray.IsTerminal(status) {
		end = since
	}
	var b strings.Builder
	gpus := ""
	if env, ok := j.req.RuntimeEnv["env_vars"].(map[string]any); ok {
		gpus, _ = env["CUDA_VISIBLE_DEVICES"].(string)
	}
	fmt.Fprintf(&b, "fake-ray: running %s with CUDA_VISIBLE_DEVICES=%s\n", j.req.Entrypoint, gpus)
	for i, t := 1, started.Add(every); !t.After(end); i, t = i+1, t.Add(every) {
		fmt.Fprintf(&b, "step %d\n", i)
	}
	switch status {
	case ray.StatusSucceeded:
		b.WriteString("done\n")
	case ray.StatusFailed:
		b.WriteString("error\n")
	case ray.StatusStopped:
		b.WriteString("stopped\n")
	}
	return b.String()
}
