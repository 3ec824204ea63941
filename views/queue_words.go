package views

import (
	"strconv"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/words"
)

// GPUPlace is one GPU a running job holds: its node and its index there.
type GPUPlace struct {
	Node  string
	Index int
}

// PlacesWords writes where a job's GPUs are, node by node:
// "sim-node-1 · GPUs 4, 5", "a · GPU 0; b · GPUs 1, 2". places come
// ordered by node, then index.
func PlacesWords(places []GPUPlace) string {
	var parts []string
	for i := 0; i < len(places); {
		j := i
		var idx []string
		for ; j < len(places) && places[j].Node == places[i].Node; j++ {
			idx = append(idx, strconv.Itoa(places[j].Index))
		}
		parts = append(parts, places[i].Node+" · "+words.Plural(len(idx), "GPU")+" "+strings.Join(idx, ", "))
		i = j
	}
	return strings.Join(parts, "; ")
}

// runsOn is the queue's "Runs on" cell: the node and GPUs once placed,
// else what the job is doing to get there.
func runsOn(j QueueJob) string {
	if j.RunsOn != "" {
		return j.RunsOn
	}
	switch j.State {
	case "scheduled", "allocating":
		return "being placed"
	}
	return "–"
}

// LevelNote explains the scheduler's GPU-time levels ("GPU-time level 2
// of 4") to people: a tooltip on the reasons, and a line under the table
// for those without a pointer or JavaScript.
const LevelNote = "GPU-time level: the policy sorts waiting jobs into levels by the GPU time they have had. " +
	"Level 1 (the least) goes first; a job that has waited long is promoted to the front."

// isLevel says whether a reason names a GPU-time level.
func isLevel(reason string) bool { return strings.Contains(reason, "GPU-time level") }

// anyLevel says whether any waiting job's reason names a GPU-time level.
func anyLevel(jobs []QueueJob) bool {
	for _, j := range jobs {
		if isLevel(j.Reason) {
			return true
		}
	}
	return false
}
