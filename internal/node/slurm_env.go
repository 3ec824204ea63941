package node

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// slurmEnv adds Slurm's job variables to env, so that batch scripts written
// for Slurm run unchanged: SLURM_JOB_ID, SLURM_JOB_NAME, the node and task
// counts (a multi-node job's nodes, and this part's node id), the GPUs on
// this node, and SLURM_SUBMIT_DIR (the submitter's,
// when the submission sent it; else the working directory). Counts the
// submission sent (SLURM_NTASKS, SLURM_CPUS_PER_TASK) are kept. It also
// expands the % patterns of GPUSCHED_STDOUT and GPUSCHED_STDERR (sbatch's
// -o and -e), which a batch job's command redirects to. host is the node's
// name as its agent reports it (else the system's host name), short.
func slurmEnv(env map[string]string, s *api.StartJob, who identity, dir, host string) {
	if host == "" {
		host, _ = os.Hostname()
	}
	if short, _, ok := strings.Cut(host, "."); ok && net.ParseIP(host) == nil {
		host = short
	}
	gpus := strconv.Itoa(len(s.GPUs))
	nodes, list, rank := 1, host, 0
	if p := s.Part; p != nil {
		nodes, list, rank = len(p.Nodes), strings.Join(p.Nodes, ","), p.Rank
	}
	set := map[string]string{
		"SLURM_JOB_ID": strconv.FormatInt(s.JobID, 10), "SLURM_JOBID": strconv.FormatInt(s.JobID, 10),
		"SLURM_JOB_NAME": s.Name, "SLURM_NNODES": strconv.Itoa(nodes), "SLURM_JOB_NUM_NODES": strconv.Itoa(nodes),
		"SLURM_JOB_NODELIST": list, "SLURM_NODELIST": list, "SLURMD_NODENAME": host,
		"SLURM_NODEID": strconv.Itoa(rank), "SLURM_PROCID": strconv.Itoa(rank), "SLURM_LOCALID": "0",
		"SLURM_GPUS_ON_NODE": gpus, "SLURM_GPUS_PER_NODE": gpus, "SLURM_JOB_GPUS": gpuList(s.GPUs),
		"SLURM_CLUSTER_NAME": "gpusched",
	}
	for k, v := range set {
		env[k] = v
	}
	if _, ok := env["SLURM_NTASKS"]; !ok {
		env["SLURM_NTASKS"] = strconv.Itoa(nodes)
	}
	env["SLURM_TASKS_PER_NODE"] = tasksPerNode(env["SLURM_NTASKS"], nodes)
	env["SLURM_PROCID"] = strconv.Itoa(firstTask(env["SLURM_NTASKS"], nodes, rank))
	if _, ok := env["SLURM_SUBMIT_DIR"]; !ok {
		env["SLURM_SUBMIT_DIR"] = dir
	}
	env["SLURM_NPROCS"] = env["SLURM_NTASKS"]
	for _, k := range []string{"GPUSCHED_STDOUT", "GPUSCHED_STDERR"} {
		if p, ok := env[k]; ok {
			env[k] = expandOutput(p, s, who.name, host)
		}
	}
}

// expandOutput expands Slurm's filename patterns: %j the job id, %x its
// name, %A the array's id (the job's own outside an array), %a the task id
// (Slurm's 4294967294 outside an array), %u the user, %N the node, %% a %.
// A width between % and the letter pads numbers with zeros (%4a: 0007).
func expandOutput(p string, s *api.StartJob, user, host string) string {
	arrayID, task := strconv.FormatInt(s.JobID, 10), "4294967294"
	if s.Array != nil {
		arrayID, task = strconv.FormatInt(s.Array.JobID, 10), strconv.Itoa(s.Array.TaskID)
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' || i+1 >= len(p) {
			b.WriteByte(p[i])
			continue
		}
		j := i + 1
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
		}
		if j >= len(p) {
			b.WriteString(p[i:])
			break
		}
		width, _ := strconv.Atoi(p[i+1 : j])
		var v string
		numeric := true
		switch p[j] {
		case '%':
			v, numeric = "%", false
		case 'j':
			v = strconv.FormatInt(s.JobID, 10)
		case 'A':
			v = arrayID
		case 'a':
			v = task
		case 'x':
			v, numeric = s.Name, false
		case 'u':
			v, numeric = user, false
		case 'N', 'n':
			v, numeric = host, false
			if p[j] == 'n' {
				v, numeric = "0", true
			}
		case 's':
			v, numeric = "batch", false
		default:
			b.WriteString(p[i : j+1])
			i = j
			continue
		}
		if numeric && len(v) < width {
			v = strings.Repeat("0", width-len(v)) + v
		}
		b.WriteString(v)
		i = j
	}
	return b.String()
}

// tasksOn is how many of ntasks node rank runs, spread over nodes as
// Slurm's block distribution does (the first nodes take one more when
// they do not divide evenly); at least 1.
func tasksOn(ntasks, nodes, rank int) int {
	if nodes < 1 || ntasks < nodes {
		return 1
	}
	n := ntasks / nodes
	if rank < ntasks%nodes {
		n++
	}
	return n
}

// firstTask is the global id of node rank's first task (its SLURM_PROCID).
func firstTask(ntasks string, nodes, rank int) int {
	n, err := strconv.Atoi(ntasks)
	if err != nil {
		n = nodes
	}
	first := 0
	for r := range rank {
		first += tasksOn(n, nodes, r)
	}
	return first
}

// tasksPerNode is SLURM_TASKS_PER_NODE for ntasks spread evenly over
// nodes, in Slurm's form: "2(x2)", or "3,2" when uneven.
func tasksPerNode(ntasks string, nodes int) string {
	n, err := strconv.Atoi(ntasks)
	if err != nil || n < 1 || nodes < 1 {
		return "1"
	}
	n = max(n, nodes) // every part runs at least its own task
	per, extra := n/nodes, n%nodes
	if extra == 0 {
		if nodes == 1 {
			return strconv.Itoa(per)
		}
		return fmt.Sprintf("%d(x%d)", per, nodes)
	}
	parts := []string{fmt.Sprintf("%d(x%d)", per+1, extra)}
	if extra == 1 {
		parts[0] = strconv.Itoa(per + 1)
	}
	if rest := nodes - extra; rest == 1 {
		parts = append(parts, strconv.Itoa(per))
	} else if per > 0 {
		parts = append(parts, fmt.Sprintf("%d(x%d)", per, rest))
	}
	return strings.Join(parts, ",")
}
