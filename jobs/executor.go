package jobs

import (
	"github.com/gpuscheduler/gpuscheduler/models"
)

// Executors are the executors this server runs commands on (the node
// agents, a Ray cluster), by name: adapters of the job lifecycle, which
// hands them placed jobs and asks them to stop (models.Executor). Leases
// need none: the client runs its own process.
type Executors map[string]models.Executor

// Has reports whether jobs of executor name can run here. Leases always can.
func (e Executors) Has(name string) bool {
	_, ok := e[name]
	return name == models.ExecutorLease || ok
}
