package main

import (
	"cmp"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/cli"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
)

// newNodeDoctorCmd is `gpusched node doctor`: a GPU host's pre-flight check.
func newNodeDoctorCmd() *cobra.Command {
	var c NodeConfig
	var userMap, migLayout string
	cmd := &cobra.Command{
		Use:   "doctor [--server URL --token TOKEN] [--fake-gpus 1x8:H100-80GB [--fake-mig 0-3:7x1g.10gb]] [--mig-layout 'gpu 0-3: 7x1g.10gb']",
		Short: "Check a GPU host before its agent joins: NVML, driver, GPU health, MIG, persistence, users, clock, server",
		Long: `Check a GPU host before its agent joins. Each line is OK, WARN or FAIL, with the fix:
NVML loads; the driver and CUDA versions; every GPU's health (ECC, retired pages or
remapped rows, temperature); the MIG layout (GPUs in MIG mode are offered as their MIG
devices) and, with --mig-layout or else the layout an admin declared on the server
(gpusched mig-layout), what applying that layout would change, GPU by GPU (a dry run);
persistence mode; processes already holding GPUs;
whether jobs can run as their owners' Unix users; the state folder; the local API port;
the server reachable with the node token; the clock against the server's.
Reads the same flags and environment as gpusched node. Exits 1 when a check fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.doctorEnv(cmd, userMap); err != nil {
				return err
			}
			shared, err := node.ParseSharedGPUs(c.Shared, 0)
			if err != nil {
				return fmt.Errorf("--shared-gpus: %w", err)
			}
			d := &node.Doctor{UserMap: c.UserMap, StateDir: c.StateDir, Port: c.Port, Shared: shared, MPS: c.MPS}
			if migLayout = cmp.Or(migLayout, os.Getenv("GPUSCHED_NODE_MIG_LAYOUT")); migLayout != "" {
				l, err := gpu.ParseLayout(migLayout)
				if err != nil {
					return err
				}
				d.MIGLayout = l
			}
			if c.FakeGPUs != "" {
				fake, err := c.fakeGPUs()
				if err != nil {
					return err
				}
				d.GPUs = fake
			} else if n, err := gpu.NewNVML(); err != nil {
				d.GPUErr = err
			} else {
				defer n.Close()
				d.GPUs = n
			}
			if c.Server != "" && c.Token != "" {
				d.Client = apiclient.New(c.Server, c.Token)
				d.Client.UserAgent = "gpusched-node-doctor/" + version
			}
			checks := d.Run(cmd.Context())
			if err := node.WriteReport(cmd.OutOrStdout(), checks); err != nil {
				return err
			}
			if node.Failed(checks) {
				return cli.ExitCode(1)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.Server, "server", "", "control plane URL (env GPUSCHED_SERVER)")
	f.StringVar(&c.Token, "token", "", "node token (env GPUSCHED_NODE_TOKEN or GPUSCHED_NODE_TOKEN_FILE)")
	f.StringVar(&c.Name, "name", "", "host name (default: this host's name)")
	f.StringVar(&c.FakeGPUs, "fake-gpus", "", `check simulated GPUs, e.g. "1x8:H100-80GB"`)
	f.StringVar(&c.FakeMIG, "fake-mig", "", `with --fake-gpus: split them into MIG devices, e.g. "0-3:7x1g.10gb"`)
	f.StringVar(&c.Shared, "shared-gpus", "", `GPUs the agent shares into slots, e.g. "0-1:4": show the slots offered (env GPUSCHED_NODE_SHARED_GPUS)`)
	f.BoolVar(&c.MPS, "mps", false, "the host runs the CUDA MPS server (env GPUSCHED_NODE_MPS=1)")
	f.StringVar(&migLayout, "mig-layout", "", `the MIG layout the host should have, e.g. "gpu 0-3: 7x1g.10gb; gpu 4: 2x3g.40gb": show what applying it would change (env GPUSCHED_NODE_MIG_LAYOUT)`)
	f.IntVar(&c.Port, "port", 0, "port of the local API (env GPUSCHED_PORT, default 9123; -1: not checked)")
	f.StringVar(&c.StateDir, "state-dir", "", "the agent's state folder (env GPUSCHED_NODE_STATE_DIR)")
	f.StringVar(&userMap, "user-map", "", `job owners' Unix users, "ana@example.com=ana,…" (env GPUSCHED_NODE_USER_MAP)`)
	return cmd
}

// doctorEnv completes the flags from the environment like the agent does,
// but a missing server or token only skips the server checks.
func (c *NodeConfig) doctorEnv(cmd *cobra.Command, userMap string) error {
	c.Server = cmp.Or(c.Server, os.Getenv("GPUSCHED_SERVER"))
	if c.Token == "" {
		t, err := cli.SecretOrValue("GPUSCHED_NODE_TOKEN", os.Getenv)
		if err != nil {
			return err
		}
		c.Token = t
	}
	if c.Server != "" && c.Token != "" {
		return c.fromEnv(cmd, userMap)
	}
	// fromEnv insists on both; fill the rest the same way with stand-ins.
	server, token := c.Server, c.Token
	c.Server, c.Token = cmp.Or(server, "unset"), cmp.Or(token, "unset")
	err := c.fromEnv(cmd, userMap)
	c.Server, c.Token = server, token
	return err
}
