package api

import (
	"strconv"
	"strings"
)

// JobPart is which part of a multi-node job a start command starts: one
// part per node, started one after another (the first part's agent chooses
// the rendezvous port the others are given), all ending when one fails.
type JobPart struct {
	// Rank is the part's node rank, 0 for the first part.
	Rank int `json:"rank"`
	// RunID is the first part's start command, which names the run; 0 in
	// the first part itself.
	RunID int64 `json:"run_id,omitempty"`
	// Nodes are the parts' node names in rank order, NodeIDs their ids on
	// the control plane, GPUs how many GPUs each part has.
	Nodes   []string `json:"nodes"`
	NodeIDs []int64  `json:"node_ids"`
	GPUs    []int    `json:"gpus"`
	// MasterAddr and MasterPort are where the first part listens; empty in
	// the first part's own start, whose agent fills them in.
	MasterAddr string `json:"master_addr,omitempty"`
	MasterPort int    `json:"master_port,omitempty"`
	// StepPort is where the first part of a multi-node batch job serves
	// the steps of its script (its agent chooses it, as MasterPort), and
	// StepSecret what the parts prove to each other that they belong to
	// the job: the control plane makes it, only the job's parts get it,
	// and it is never shown.
	StepPort   int    `json:"step_port,omitempty"`
	StepSecret string `json:"step_secret,omitempty"`
}

// Env is what the part's run sees of the job's other parts: MASTER_ADDR,
// MASTER_PORT, WORLD_SIZE and NODE_RANK as torchrun and
// torch.distributed read them (one process per node: the world is the
// nodes), and the same as GPUSCHED_NNODES, GPUSCHED_NODE_RANK,
// GPUSCHED_GPUS_PER_NODE (this part's GPUs) and GPUSCHED_NODELIST.
func (p *JobPart) Env() map[string]string {
	n := strconv.Itoa(len(p.Nodes))
	rank := strconv.Itoa(p.Rank)
	gpus := ""
	if p.Rank < len(p.GPUs) {
		gpus = strconv.Itoa(p.GPUs[p.Rank])
	}
	return map[string]string{
		"MASTER_ADDR": p.MasterAddr, "MASTER_PORT": strconv.Itoa(p.MasterPort),
		"WORLD_SIZE": n, "NODE_RANK": rank,
		"GPUSCHED_NNODES": n, "GPUSCHED_NODE_RANK": rank, "GPUSCHED_GPUS_PER_NODE": gpus,
		"GPUSCHED_NODELIST":    strings.Join(p.Nodes, ","),
		"GPUSCHED_MASTER_ADDR": p.MasterAddr, "GPUSCHED_MASTER_PORT": strconv.Itoa(p.MasterPort),
	}
}
