package node

import (
	"fmt"
	"net"
	"os"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// rendezvous fills in where the first part of a multi-node job listens:
// this node's address (the agent's Address, else its host name) and a port
// free now, which the job's rank 0 binds (MASTER_PORT). Other parts come
// with both set.
func rendezvous(p *api.JobPart, addr string) error {
	if p == nil || p.Rank != 0 || p.MasterPort != 0 {
		return nil
	}
	if addr == "" {
		addr, _ = os.Hostname()
	}
	port, err := freePort()
	if err != nil {
		return fmt.Errorf("node: choose a rendezvous port: %w", err)
	}
	p.MasterAddr, p.MasterPort = addr, port
	if p.StepSecret != "" {
		if p.StepPort, err = freePort(); err != nil {
			return fmt.Errorf("node: choose a step port: %w", err)
		}
	}
	return nil
}

// freePort asks the kernel for a TCP port free on every address.
func freePort() (int, error) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// partResult adds where the first part listens to its start's answer.
func partResult(res *api.CommandResult, p *api.JobPart) {
	if p != nil && p.Rank == 0 {
		res.MasterAddr, res.MasterPort, res.StepPort = p.MasterAddr, p.MasterPort, p.StepPort
	}
}
