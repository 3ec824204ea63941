package handlers

import (
	"regexp"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/models"
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

const maxCommand = 16 << 10

// jobFrom validates a submission (of the API, or built by the allocate,
// hold, node lease and page handlers) against the cluster's capacity and
// what u may ask, and returns the job to create. Every problem is a 400
// sentence, but critical priority without the right (403).
func jobFrom(s *api.SubmitRequest, u *models.User, cp models.Capacity, can func(executor string) bool) (*models.Job, error) {
	j := &models.Job{OwnerID: u.ID, TeamID: u.TeamID, Name: strings.TrimSpace(s.Name), Command: s.Command,
		Workdir: s.Workdir, Env: s.Env, JobType: strings.TrimSpace(s.JobType), AllowMultiNode: s.AllowMultiNode,
		GPUModel: strings.TrimSpace(s.GPUModel), MaxRetries: s.MaxRetries, Executor: s.Executor, Preemptible: true}
	if j.Executor == "" {
		j.Executor = models.ExecutorNode
	}
	switch {
	case j.Executor != models.ExecutorLease && j.Executor != models.ExecutorNode && j.Executor != models.ExecutorRay:
		return nil, invalid("executor", "must be lease, node or ray, not %q", j.Executor)
	case j.Executor == models.ExecutorRay && !can(j.Executor):
		return nil, invalid("executor", "this server cannot run ray jobs: it has no Ray cluster (its admin sets GPUSCHED_RAY_ADDRESS); use executor \"node\" or \"lease\"")
	case !can(j.Executor):
		return nil, invalid("executor", "this server cannot run %s jobs yet; use executor \"lease\" (you run the process on the GPUs you get)", j.Executor)
	case j.Executor != models.ExecutorLease && strings.TrimSpace(j.Command) == "":
		return nil, invalid("command", "required: what to run on the GPUs")
	case len(j.Command) > maxCommand:
		return nil, invalid("command", "at most %d bytes, got %d", maxCommand, len(j.Command))
	case len(j.Name) > 200 || len(j.JobType) > 200:
		return nil, invalid("name", "name and job_type are at most 200 characters")
	case len(j.Workdir) > 4096:
		return nil, invalid("workdir", "at most 4096 characters")
	case len(j.Env) > 200:
		return nil, invalid("env", "at most 200 variables")
	case s.MaxRetries < 0 || s.MaxRetries > 10:
		return nil, invalid("max_retries", "must be 0–10")
	}
	for k, v := range j.Env {
		if !envName.MatchString(k) || len(v) > 32<<10 {
			return nil, invalid("env", "%q is not a variable name (letters, digits, _) or its value is over 32 KiB", k)
		}
	}
	if v, ok := j.Env[ray.RuntimeEnvVar]; ok && j.Executor == models.ExecutorRay {
		if _, err := ray.ParseRuntimeEnv(v); err != nil {
			return nil, invalid("env", "%s", err)
		}
	}
	if s.Preemptible != nil {
		j.Preemptible = *s.Preemptible
	} else if j.Executor == models.ExecutorLease {
		j.Preemptible = false // a lease's process is the client's; stopping it is not ours to do
	}
	if err := submittedGPUs(s, j, cp); err != nil {
		return nil, err
	}
	prio, err := priorityFor(s.Priority, u)
	if err != nil {
		return nil, err
	}
	j.Priority = prio
	if s.EstimatedDuration != 0 {
		if err := s.EstimatedDuration.Validate(); err != nil {
			return nil, invalid("estimated_duration", "%s", err)
		}
		d := int64(s.EstimatedDuration)
		j.EstimatedDurationS = &d
	}
	switch grace := s.StopGrace; {
	case grace == 0:
	case grace < 1 || grace > 3600:
		return nil, invalid("stop_grace", "must be between 1 s and 1 h, got %d s", grace)
	case j.Executor == models.ExecutorLease:
		return nil, invalid("stop_grace", "a lease's process is the client's; only node and ray jobs are stopped with a grace")
	default:
		j.StopGraceS = int(grace)
	}
	j.Checkpoint = s.Checkpoint
	if j.Checkpoint && j.Executor == models.ExecutorLease {
		return nil, invalid("checkpoint", "a lease's process is the client's; only node and ray jobs checkpoint")
	}
	return j, nil
}

// submittedGPUs checks the GPUs s asks for against the cluster and sets
// them on j.
func submittedGPUs(s *api.SubmitRequest, j *models.Job, cp models.Capacity) error {
	if err := submittedShape(s, j, cp); err != nil { // job_shape_spec.go
		return err
	}
	if s.GPUShare != nil || s.GPUMemory != "" {
		return submittedShare(s, j, cp) // job_share_spec.go
	}
	if s.GPUCount == nil {
		return invalid("gpu_count", "required: how many GPUs")
	}
	n := *s.GPUCount
	j.GPUCount = n
	matching := cp.MatchModels(j.GPUModel)
	switch {
	case n < 1:
		return invalid("gpu_count", "must be at least 1, got %d", n)
	case cp.TotalGPUs == 0:
		return invalid("gpu_count", "the cluster has no GPUs yet: start a node agent first")
	case len(matching) == 0:
		return invalid("gpu_model", "no GPU matches %q; the cluster has: %s", j.GPUModel, strings.Join(cp.MatchModels(""), ", "))
	case !j.AllowMultiNode && n > largestFor(cp, matching):
		return invalid("gpu_count", "%s do not fit on one node (at most %d); ask for fewer or set allow_multi_node", words.Count(n, "GPU"), largestFor(cp, matching))
	case n > cp.TotalGPUs:
		return invalid("gpu_count", "the cluster has %s in all; %d asked", words.Count(cp.TotalGPUs, "GPU"), n)
	}
	if s.MemoryGB != nil {
		if *s.MemoryGB <= 0 {
			return invalid("memory_gb", "must be positive")
		}
		var most int64
		for _, m := range matching {
			most = max(most, cp.Models[m])
		}
		// Compared as floats first: a huge value would overflow int64.
		if *s.MemoryGB*1024 > float64(most) {
			return invalid("memory_gb", "no GPU has %.0f GB; the largest has %.1f GB", *s.MemoryGB, float64(most)/1024)
		}
		mib := max(int64(*s.MemoryGB*1024), 1)
		j.GPUMemoryMiB = &mib
	}
	return nil
}

func largestFor(cp models.Capacity, modelsMatched []string) int {
	most := 0
	for _, m := range modelsMatched {
		most = max(most, cp.NodeGPUsByModel[m])
	}
	return most
}

// priorityFor checks priority p (0: none given, normal) against what u
// may ask: critical is for admins.
func priorityFor(p api.Priority, u *models.User) (int, error) {
	switch {
	case p == 0:
		return int(api.PriorityNormal), nil
	case !p.Valid():
		return 0, invalid("priority", "%s", p.Validate())
	case p == api.PriorityCritical && !u.IsAdmin():
		return 0, Errorf(403, api.CodeForbidden, "only admins may use critical priority; use high")
	}
	return int(p), nil
}
