package main

import (
	"cmp"
	"errors"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
)

func newNodeCmd() *cobra.Command {
	var server, token, name, fake string
	cmd := &cobra.Command{
		Use:   "node --server URL --token TOKEN --fake-gpus 1x8:H100-80GB",
		Short: "Run the node agent on a GPU host: register, heartbeat telemetry",
		Long: `Run the node agent on a GPU host. It registers the host's GPUs with the control
plane and heartbeats their telemetry; it only ever calls the server, so it works
behind NAT. This release reports simulated GPUs (--fake-gpus); reading real GPUs
through NVML comes with the node-agent release.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			server = cmp.Or(server, os.Getenv("GPUSCHED_SERVER"))
			if token == "" {
				t, err := secretOrValue("GPUSCHED_NODE_TOKEN", os.Getenv)
				if err != nil {
					return err
				}
				token = t
			}
			if server == "" || token == "" {
				return errors.New("give --server URL and --token TOKEN (or GPUSCHED_SERVER and GPUSCHED_NODE_TOKEN); create a token with: gpusched token create --node NAME")
			}
			if fake == "" {
				return errors.New("this release runs with simulated GPUs only: add --fake-gpus 1x8:H100-80GB")
			}
			spec, err := gpu.ParseFakeSpec(fake)
			if err != nil {
				return err
			}
			spec.Nodes = 1
			host, _ := os.Hostname()
			name = cmp.Or(name, host)
			logger := newLogger(os.Stderr, "info", "auto")
			agent := &node.Agent{
				Client: apiclient.New(server, token), GPUs: gpu.NewFake(name, spec),
				Hostname: name, Version: version, Logger: logger, Interval: 5 * time.Second,
			}
			return agent.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "control plane URL (env GPUSCHED_SERVER)")
	cmd.Flags().StringVar(&token, "token", "", "node token (env GPUSCHED_NODE_TOKEN or GPUSCHED_NODE_TOKEN_FILE)")
	cmd.Flags().StringVar(&name, "name", "", "host name to report (default: this host's name)")
	cmd.Flags().StringVar(&fake, "fake-gpus", "", `simulate GPUs, e.g. "1x8:H100-80GB" (one host of 8)`)
	return cmd
}
