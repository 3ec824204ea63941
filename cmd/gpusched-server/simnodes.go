package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient/nethttp"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
	"github.com/gpuscheduler/gpuscheduler/internal/words"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

const simTokenName = "dev simulated node"

// startSimNodes runs the simulated cluster of `serve --dev` in process. Each
// simulated node is a real node agent with a fake GPU provider, talking to
// this server over HTTP with its own node token, exactly as a remote host
// would, and runs the jobs dispatched to it as local processes; their
// records live under dataDir/sim-nodes, so a restarted dev server finds
// them again. Tokens from earlier runs are revoked. migText, unless empty,
// splits the first node's GPUs into MIG devices (gpu.FakeSpec.WithMIG); the
// other nodes stay whole, so that a job of a whole node still fits.
// sharedText, unless empty, shares the last node's GPUs into slots
// (node.ParseSharedGPUs), so that with three nodes a slice job, a share job
// and a whole-node job run at once.
func startSimNodes(ctx context.Context, db *models.DB, lc *models.Lifecycle, specText, migText, sharedText, baseURL, dataDir string, logger *slog.Logger) (stop func(), err error) {
	spec, err := gpu.ParseFakeSpec(specText)
	if err != nil {
		return nil, err
	}
	if migText != "" {
		if spec, err = spec.WithMIG(migText); err != nil {
			return nil, fmt.Errorf("--sim-mig: %w", err)
		}
	}
	shared, err := node.ParseSharedGPUs(sharedText, spec.GPUsPerNode)
	if err != nil {
		return nil, fmt.Errorf("--sim-shared: %w", err)
	}
	tokens := make([]string, spec.Nodes)
	names := make([]string, spec.Nodes)
	err = db.InTx(ctx, func(ctx context.Context, tx *models.Tx) error {
		for i := range spec.Nodes {
			names[i] = fmt.Sprintf("sim-node-%d", i+1)
			n, err := models.EnsureNode(ctx, tx, names[i])
			if err != nil {
				return err
			}
			old, err := models.ListTokens(ctx, tx, models.TokenFilter{NodeID: &n.ID})
			if err != nil {
				return err
			}
			for _, t := range old {
				if t.Name == simTokenName {
					if _, err := models.RevokeToken(ctx, tx, t.Prefix, nil, time.Now()); err != nil {
						return err
					}
				}
			}
			if tokens[i], _, err = models.CreateNodeToken(ctx, tx, n.ID, simTokenName); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("simulated nodes: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	agents := make([]*node.Agent, 0, spec.Nodes)
	for i := range spec.Nodes {
		hostSpec := spec
		if i > 0 {
			hostSpec.MIG = nil
		}
		agent := &node.Agent{
			Client:   simClient(baseURL, tokens[i]),
			GPUs:     gpu.NewFake(names[i], hostSpec),
			Hostname: names[i] + ".sim",
			// All on this machine: a multi-node job's parts meet here.
			Address:  "127.0.0.1",
			Version:  version + "-sim",
			Logger:   logger.With("sim_node", names[i]),
			Interval: 2 * time.Second,
			StateDir: filepath.Join(dataDir, "sim-nodes", names[i]),
			// Simulated hosts: the server's own user runs everyone's jobs.
			RunAsSelf: true,
		}
		if i == spec.Nodes-1 && (i > 0 || migText == "") {
			agent.Shared = shared
		}
		// Each simulated host serves its interactive sessions on a loopback
		// port of its own, as `gpusched-server node --session-listen` does.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			cancel()
			wg.Wait()
			return nil, fmt.Errorf("simulated node %s: session listener: %w", names[i], err)
		}
		agent.SessionListener = ln
		agents = append(agents, agent)
		wg.Go(func() {
			if err := agent.Run(ctx); err != nil {
				logger.Error("simulated node stopped", "node", names[i], "err", err)
			}
		})
	}
	logger.Info("simulated nodes started", "nodes", spec.Nodes, "gpus_per_node", spec.GPUsPerNode, "model", spec.Model, "mig", migText, "shared", sharedText)
	return func() {
		cancel()
		wg.Wait()
		// The simulated hosts end with the server: their jobs' processes
		// must not run on without it (they run in their own process groups,
		// so Ctrl-C does not reach them). The next start reports their ends.
		var stopped []int64
		for _, a := range agents {
			stopped = append(stopped, a.StopJobs(5*time.Second)...)
		}
		if len(stopped) == 0 {
			return
		}
		// Their owners read why: each ends with the shutdown as its reason.
		if _, err := jobs.EndForShutdown(context.WithoutCancel(ctx), db, lc, stopped, time.Now()); err != nil {
			logger.Error("jobs stopped by the shutdown were not all ended", "jobs", stopped, "err", err)
		}
		logger.Info(words.Count(len(stopped), "job")+" "+jobs.ShutdownReason, "jobs", stopped)
	}, nil
}

// simClient is a simulated node's API client: net/http with kept
// connections, as a real node agent has.
func simClient(baseURL, token string) *apiclient.Client {
	c := apiclient.New(baseURL, token)
	c.Transport = nethttp.New(&http.Client{Timeout: 30 * time.Second})
	return c
}
