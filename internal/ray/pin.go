package ray

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// How a job is pinned to the node and GPUs the scheduler allocated.
//
// GPUScheduler decides where a job runs; Ray must run it exactly there and
// must count those GPUs as busy, or the two ledgers drift apart (Ray would
// place other work on GPUs we handed out, or refuse work we think fits).
// Ray's own job submission gives three levers, and we use all three:
//
//  1. entrypoint_resources {"node:<ip>": 0.001}. Every Ray node carries a
//     built-in resource "node:<its IP>" of 1.0; asking for a sliver of it
//     places the entrypoint on that node and nowhere else, while leaving room
//     for the other jobs we put there. (Ray's NodeAffinitySchedulingStrategy
//     is not reachable through the Jobs API; a custom resource per node would
//     need every raylet started with it. The node:<ip> resource needs nothing.)
//  2. entrypoint_num_gpus = the number of GPUs we allocated on that node.
//     Ray then reserves that many GPUs of the node in its own accounting, so
//     Ray's free-GPU count on the node equals ours and Ray never over-commits
//     it. Were it 0, Ray would think the GPUs idle.
//  3. runtime_env.env_vars CUDA_VISIBLE_DEVICES = our GPU indices, with
//     RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES=1 so that Ray does not
//     overwrite it with the indices it picked itself. Ray counts N GPUs busy
//     (lever 2); the process sees exactly the N we chose (lever 3). Ray's
//     internal choice of indices is then only bookkeeping: as long as Ray
//     only runs what GPUScheduler hands it, counts per node always agree.
//
// A multi-node allocation pins the entrypoint (the driver) to the first
// node with that node's GPUs; the whole allocation is in GPUSCHED_GPUS
// ("nodeA:0,1;nodeB:2,3") for the driver to place its Ray tasks with.
//
// To check on a real cluster: that the driver process keeps our
// CUDA_VISIBLE_DEVICES under RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES in
// the Ray version deployed, that the node:<ip> names match the IPs in
// GPUSCHED_RAY_NODES (see `ray status -v`), and how the job's own Ray tasks
// that ask for GPUs share the entrypoint's reservation.
const nodeResourceShare = 0.001

// Placement is a job and the GPUs it got, as the submission needs them.
type Placement struct {
	JobID        int64
	SubmissionID string
	Owner        string // the owner's email, for metadata
	// RunToken tells this hand-over apart from any other with the same
	// submission id (a Ray head that outlived our database): metadata
	// "gpusched_run", checked when Ray says the id exists.
	RunToken   string
	Name       string
	Entrypoint string
	Env        map[string]string
	// RayNode is the Ray node address (its IP) of the first node; "" leaves
	// the job unpinned (only for clusters of one node).
	RayNode string
	// GPUs are the allocated GPU indices by our node name, in order.
	Nodes []NodeGPUs
}

// NodeGPUs are the GPU indices allocated on one of our nodes.
type NodeGPUs struct {
	Node  string
	GPUs  []int
	UUIDs []string
}

// RuntimeEnvVar is the job env variable whose JSON object is passed to Ray
// as runtime_env (working_dir, pip, conda, container, image_uri, ...). It
// is removed from the job's env_vars.
const RuntimeEnvVar = "RAY_RUNTIME_ENV"

// runtimeEnvKeys are the runtime_env fields a user may set.
var runtimeEnvKeys = []string{"working_dir", "pip", "conda", "uv", "container", "image_uri", "py_modules", "py_executable", "config", "excludes"}

// ParseRuntimeEnv checks a user's runtime_env wishes (a JSON object with the
// keys Ray documents; env_vars belong in the job's env).
func ParseRuntimeEnv(s string) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s must be a JSON object like {\"pip\": [\"torch\"]}", RuntimeEnvVar)
	}
	for k := range m {
		if !slices.Contains(runtimeEnvKeys, k) {
			return nil, fmt.Errorf("%s: %q is not a runtime_env field GPUScheduler passes on (one of %s)", RuntimeEnvVar, k, strings.Join(runtimeEnvKeys, ", "))
		}
	}
	return m, nil
}

// Request builds the submission of p: the pinning above, the user's
// runtime_env wishes, and metadata naming the owner and our job id.
func (p Placement) Request() (SubmitRequest, error) {
	env := map[string]string{}
	runtime := map[string]any{}
	for k, v := range p.Env {
		if k == RuntimeEnvVar {
			m, err := ParseRuntimeEnv(v)
			if err != nil {
				return SubmitRequest{}, err
			}
			maps.Copy(runtime, m)
			continue
		}
		env[k] = v
	}
	var first NodeGPUs
	if len(p.Nodes) > 0 {
		first = p.Nodes[0]
	}
	env["CUDA_VISIBLE_DEVICES"] = joinInts(first.GPUs)
	env["RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"] = "1"
	env["GPUSCHED_JOB_ID"] = strconv.FormatInt(p.JobID, 10)
	env["GPUSCHED_GPUS"] = allGPUs(p.Nodes)
	if len(first.UUIDs) > 0 {
		env["GPUSCHED_GPU_UUIDS"] = strings.Join(first.UUIDs, ",")
	}
	runtime["env_vars"] = env
	req := SubmitRequest{
		Entrypoint: p.Entrypoint, SubmissionID: p.SubmissionID, RuntimeEnv: runtime,
		Metadata: map[string]string{"gpusched_job_id": strconv.FormatInt(p.JobID, 10), "owner": p.Owner,
			"job_name": p.Name, "submitted_by": "gpuscheduler", "gpusched_run": p.RunToken},
		EntrypointNumGPUs: float64(len(first.GPUs)),
	}
	if p.RayNode != "" {
		req.EntrypointResources = map[string]float64{"node:" + p.RayNode: nodeResourceShare}
	}
	return req, nil
}

// SubmissionID is the Ray submission id of run attempt of our job id:
// stable across retries of one dispatch, new for a new run after a requeue.
func SubmissionID(jobID int64, attempt int) string {
	return fmt.Sprintf("gpusched-%d-%d", jobID, attempt)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func allGPUs(nodes []NodeGPUs) string {
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		parts[i] = n.Node + ":" + joinInts(n.GPUs)
	}
	return strings.Join(parts, ";")
}
