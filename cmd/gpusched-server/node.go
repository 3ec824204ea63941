package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient/nethttp"
	"github.com/gpuscheduler/gpuscheduler/internal/cli"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
	"github.com/gpuscheduler/gpuscheduler/internal/node"
)

// NodeConfig is the node agent's configuration, read once from flags and
// the environment (a flag wins).
type NodeConfig struct {
	Server     string            // GPUSCHED_SERVER: the control plane
	Token      string            // GPUSCHED_NODE_TOKEN(_FILE): the node token
	Name       string            // reported host name; default: this host's
	Address    string            // GPUSCHED_NODE_ADDRESS: where other nodes reach this one (MASTER_ADDR); default: Name
	FakeGPUs   string            // simulate GPUs ("1x8:H100-80GB"); empty: NVML
	FakeMIG    string            // with FakeGPUs: split them into MIG devices ("0-3:7x1g.10gb")
	OutsideUse bool              // the fake also simulates work started outside the scheduler
	Port       int               // GPUSCHED_PORT: the local API on 127.0.0.1 (0: off)
	StateDir   string            // GPUSCHED_NODE_STATE_DIR: records of running jobs
	UserMap    map[string]string // GPUSCHED_NODE_USER_MAP: "email=unixuser,…" over users' own unix_user
	// Shared is the admin's sharing of the host's GPUs into slots for share
	// jobs (--shared-gpus, GPUSCHED_NODE_SHARED_GPUS, e.g. "0-1:4"); MPS
	// says the host runs the CUDA MPS server (--mps, GPUSCHED_NODE_MPS=1).
	Shared string
	MPS    bool
	// SessionListen is where the session listener serves the control
	// plane's proxy (GPUSCHED_SESSION_LISTEN, e.g. ":9124"; empty: off),
	// SessionURL how the control plane reaches it (GPUSCHED_SESSION_URL).
	SessionListen string
	SessionURL    string
}

func newNodeCmd() *cobra.Command {
	var c NodeConfig
	var userMap string
	cmd := &cobra.Command{
		Use:   "node --server URL --token TOKEN [--name NAME] [--fake-gpus 1x8:H100-80GB [--fake-mig 0-3:7x1g.10gb]] [--port 9123]",
		Short: "Run the node agent on a GPU host: telemetry, jobs, and the local /acquire API",
		Long: `Run the node agent on a GPU host. It registers the host's GPUs (read through NVML,
or simulated with --fake-gpus) with the control plane, heartbeats their telemetry and the
processes on them, long-polls for commands and runs the jobs they start — as the job
owner's Unix user when the agent runs as root — and serves the local-scheduler API
(GET /status, GET /jobs, POST /acquire) on 127.0.0.1:PORT for srun and gpusched run.
It only ever calls the server, so it works behind NAT. Jobs survive an agent restart:
the next agent on the same --state-dir follows them again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.fromEnv(cmd, userMap); err != nil {
				return err
			}
			return runNode(cmd.Context(), c)
		},
	}
	cmd.AddCommand(newNodeDoctorCmd()) // pre-flight check of a GPU host
	f := cmd.Flags()
	f.StringVar(&c.Server, "server", "", "control plane URL (env GPUSCHED_SERVER)")
	f.StringVar(&c.Token, "token", "", "node token (env GPUSCHED_NODE_TOKEN or GPUSCHED_NODE_TOKEN_FILE)")
	f.StringVar(&c.Name, "name", "", "host name to report (default: this host's name)")
	f.StringVar(&c.Address, "address", "", "where the other nodes reach this one: a multi-node job's MASTER_ADDR when its first part runs here (env GPUSCHED_NODE_ADDRESS; default: the name)")
	f.StringVar(&c.SessionListen, "session-listen", "", `serve interactive sessions to the control plane's proxy here, e.g. ":9124" (env GPUSCHED_SESSION_LISTEN; default off); requests must be signed with this node's token`)
	f.StringVar(&c.SessionURL, "session-url", "", `how the control plane reaches --session-listen (env GPUSCHED_SESSION_URL; default http://HOST:PORT of it)`)
	f.StringVar(&c.FakeGPUs, "fake-gpus", "", `simulate GPUs, e.g. "1x8:H100-80GB" (one host of 8); default: real GPUs through NVML`)
	f.BoolVar(&c.OutsideUse, "fake-outside-use", false, "with --fake-gpus: also simulate work started outside the scheduler")
	f.StringVar(&c.FakeMIG, "fake-mig", "", `with --fake-gpus: split GPUs into MIG devices with the real profiles of the model, e.g. "0-3:7x1g.10gb;4:2x3g.40gb"`)
	f.IntVar(&c.Port, "port", 0, "port of the local API on 127.0.0.1 (env GPUSCHED_PORT, default 9123; -1: off)")
	f.StringVar(&c.StateDir, "state-dir", "", "where running jobs are recorded (env GPUSCHED_NODE_STATE_DIR; default /var/lib/gpusched/node as root, else ~/.local/state/gpusched/node)")
	f.StringVar(&c.Shared, "shared-gpus", "", `share GPUs into slots for --gpu-share jobs, e.g. "0-1:4;3:2" or "all:4" (env GPUSCHED_NODE_SHARED_GPUS)`)
	f.BoolVar(&c.MPS, "mps", false, "the host runs the CUDA MPS server: give share jobs MPS's thread and memory limits (env GPUSCHED_NODE_MPS=1)")
	f.StringVar(&userMap, "user-map", "", `job owners' Unix users, "ana@example.com=ana,…" (env GPUSCHED_NODE_USER_MAP), over each user's own mapping`)
	return cmd
}

// fromEnv completes the flags from the environment and checks them.
func (c *NodeConfig) fromEnv(cmd *cobra.Command, userMap string) error {
	c.Server = cmp.Or(c.Server, os.Getenv("GPUSCHED_SERVER"))
	if c.Token == "" {
		t, err := cli.SecretOrValue("GPUSCHED_NODE_TOKEN", os.Getenv)
		if err != nil {
			return err
		}
		c.Token = t
	}
	if c.Server == "" || c.Token == "" {
		return errors.New("give --server URL and --token TOKEN (or GPUSCHED_SERVER and GPUSCHED_NODE_TOKEN); create a token with: gpusched token create --node NAME")
	}
	if c.FakeMIG != "" && c.FakeGPUs == "" {
		return errors.New("--fake-mig splits simulated GPUs: give --fake-gpus too")
	}
	if !cmd.Flags().Changed("port") {
		c.Port = 9123
		if p := os.Getenv("GPUSCHED_PORT"); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("GPUSCHED_PORT %q: want a port number", p)
			}
			c.Port = n
		}
	}
	c.Shared = cmp.Or(c.Shared, os.Getenv("GPUSCHED_NODE_SHARED_GPUS"))
	if !cmd.Flags().Changed("mps") {
		c.MPS = os.Getenv("GPUSCHED_NODE_MPS") == "1" || os.Getenv("GPUSCHED_NODE_MPS") == "true"
	}
	host, _ := os.Hostname()
	c.Name = cmp.Or(c.Name, host)
	c.Address = cmp.Or(c.Address, os.Getenv("GPUSCHED_NODE_ADDRESS"))
	c.StateDir = cmp.Or(c.StateDir, os.Getenv("GPUSCHED_NODE_STATE_DIR"))
	c.SessionListen = cmp.Or(c.SessionListen, os.Getenv("GPUSCHED_SESSION_LISTEN"))
	c.SessionURL = cmp.Or(c.SessionURL, os.Getenv("GPUSCHED_SESSION_URL"))
	if c.StateDir == "" {
		c.StateDir = "/var/lib/gpusched/node"
		if os.Geteuid() != 0 {
			home, _ := os.UserHomeDir()
			c.StateDir = filepath.Join(home, ".local", "state", "gpusched", "node")
		}
	}
	c.UserMap = map[string]string{}
	for kv := range strings.SplitSeq(cmp.Or(userMap, os.Getenv("GPUSCHED_NODE_USER_MAP")), ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		email, unix, ok := strings.Cut(kv, "=")
		if !ok || email == "" || unix == "" {
			return fmt.Errorf("--user-map %q: want EMAIL=UNIXUSER pairs separated by commas", kv)
		}
		c.UserMap[strings.ToLower(email)] = unix
	}
	return nil
}

// runNode runs the agent and its local API until ctx ends.
func runNode(ctx context.Context, c NodeConfig) error {
	logger := newLogger(os.Stderr, "info", "auto", false)
	var gpus gpu.Provider
	if c.FakeGPUs != "" {
		fake, err := c.fakeGPUs()
		if err != nil {
			return err
		}
		gpus = fake
	} else {
		n, err := gpu.NewNVML()
		if err != nil {
			return err
		}
		defer n.Close()
		gpus = n
	}
	client := apiclient.New(c.Server, c.Token)
	// A kept connection for the heartbeats, reports and log uploads.
	client.Transport = nethttp.New(&http.Client{Timeout: 30 * time.Second})
	client.UserAgent = "gpusched-node/" + version
	shared, err := node.ParseSharedGPUs(c.Shared, 0)
	if err != nil {
		return fmt.Errorf("--shared-gpus: %w", err)
	}
	agent := &node.Agent{Client: client, GPUs: gpus, Hostname: c.Name, Address: c.Address, Version: version, Logger: logger,
		Interval: 5 * time.Second, StateDir: c.StateDir, UserMap: c.UserMap, Shared: shared, MPS: c.MPS}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	if c.SessionListen != "" {
		ln, err := net.Listen("tcp", c.SessionListen)
		if err != nil {
			return fmt.Errorf("session listener on %s: %w", c.SessionListen, err)
		}
		agent.SessionListener, agent.SessionURL = ln, c.SessionURL
		logger.Info("session listener", "addr", ln.Addr().String())
	}
	if c.Port > 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port)))
		if err != nil {
			return fmt.Errorf("local API on 127.0.0.1:%d: %w (another agent or scheduler already there? use --port)", c.Port, err)
		}
		local := &node.Local{Agent: agent, Port: c.Port, Version: version, Logger: logger}
		wg.Go(func() {
			if err := local.Serve(ctx, ln); err != nil {
				logger.Error("local API stopped", "err", err)
			}
		})
		logger.Info("local API listening", "url", "http://"+ln.Addr().String())
	}
	err = agent.Run(ctx)
	cancel()
	wg.Wait()
	return err
}

// fakeGPUs is the simulated host the flags describe.
func (c *NodeConfig) fakeGPUs() (*gpu.Fake, error) {
	spec, err := gpu.ParseFakeSpec(c.FakeGPUs)
	if err != nil {
		return nil, err
	}
	if c.FakeMIG != "" {
		if spec, err = spec.WithMIG(c.FakeMIG); err != nil {
			return nil, err
		}
	}
	spec.Nodes, spec.OutsideUse = 1, c.OutsideUse
	return gpu.NewFake(c.Name, spec), nil
}
