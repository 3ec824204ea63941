package main

import (
	"log/slog"

	"github.com/gpuscheduler/gpuscheduler/internal/ray"
	"github.com/gpuscheduler/gpuscheduler/jobs"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// addRayExecutor registers the Ray executor when a Ray cluster is configured.
func addRayExecutor(deps *jobs.Deps, rc RayConfig, logger *slog.Logger) error {
	if rc.Address == "" {
		return nil
	}
	client, err := ray.New(rc.Address)
	if err != nil {
		return err
	}
	client.HeaderName, client.HeaderValue = rc.header()
	deps.Executors[models.ExecutorRay] = jobs.NewRayExecutor(deps, jobs.RayConfig{Client: client, Nodes: rc.Nodes,
		SyncEvery: rc.SyncEvery, LostAfter: rc.LostAfter, StopTimeout: rc.StopTimeout})
	logger.Info("ray dispatch on", "address", rc.Address, "mapped_nodes", len(rc.Nodes), "lost_after", rc.LostAfter)
	return nil
}
