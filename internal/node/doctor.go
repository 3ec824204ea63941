package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
	"github.com/gpuscheduler/gpuscheduler/internal/gpu"
)

// Status grades one line of the doctor's report.
type Status string

// The grades: OK needs nothing, WARN works but should be fixed, FAIL keeps
// the host from joining or running jobs.
const (
	OK   Status = "OK"
	Warn Status = "WARN"
	Fail Status = "FAIL"
)

// Check is one line of `gpusched node doctor`: what was checked, what was
// found, and the fix when it is not OK.
type Check struct {
	Status Status
	Name   string
	Detail string
	Fix    string
}

// Doctor is a GPU host's pre-flight check before its agent joins.
type Doctor struct {
	// GPUs is the host's provider (NVML, or a fake); nil with GPUErr set when it did not load.
	GPUs   gpu.Provider
	GPUErr error
	// Client reaches the server with the node token; nil when none was given.
	Client   *apiclient.Client
	UserMap  map[string]string // email → Unix user, as the agent's --user-map
	StateDir string
	Port     int // the local API's port; 0: not checked
	Now      func() time.Time
	// MaxSkew is the clock difference with the server that makes a WARN (default 2s); ten times it fails.
	MaxSkew time.Duration
	// MIGLayout is the MIG layout the host should have: the doctor says
	// what applying it would change (a dry run); nil: none given.
	MIGLayout gpu.Layout
	// Shared and MPS are the agent's --shared-gpus and --mps: the doctor
	// shows the slots offered (doctor_shared.go).
	Shared SharedGPUs
	MPS    bool
}

// Run performs every check, in the order an operator fixes things.
func (d *Doctor) Run(ctx context.Context) []Check {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.MaxSkew == 0 {
		d.MaxSkew = 2 * time.Second
	}
	var out []Check
	out = append(out, d.declaredLayout(ctx)...)
	out = append(out, d.gpuChecks(ctx)...)
	out = append(out, d.runAsChecks()...)
	out = append(out, d.stateDirCheck())
	if d.Port > 0 {
		out = append(out, d.portCheck())
	}
	out = append(out, d.serverChecks(ctx)...)
	return out
}

// Failed reports whether any check failed.
func Failed(checks []Check) bool {
	for _, c := range checks {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

// WriteReport writes checks one a line, the fix indented below.
func WriteReport(w io.Writer, checks []Check) error {
	for _, c := range checks {
		if _, err := fmt.Fprintf(w, "%-5s %-12s %s\n", c.Status, c.Name, c.Detail); err != nil {
			return err
		}
		if c.Fix != "" && c.Status != OK {
			if _, err := fmt.Fprintf(w, "%-5s %-12s fix: %s\n", "", "", c.Fix); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *Doctor) runAsChecks() []Check {
	if os.Geteuid() != 0 {
		me, _ := user.Current()
		name := "this user"
		if me != nil {
			name = me.Username
		}
		return []Check{{Status: Warn, Name: "run-as", Detail: fmt.Sprintf("not root: every job runs as %s", name),
			Fix: "run the agent as root (deploy/systemd/gpusched-node.service does) so jobs run as their owners' Unix users"}}
	}
	var out []Check
	if err := trySpawnAs("nobody"); err != nil {
		out = append(out, Check{Status: Fail, Name: "run-as", Detail: "cannot start a process as another user: " + err.Error(),
			Fix: "give the agent CAP_SETUID and CAP_SETGID (the systemd unit keeps them); check with: setpriv --reuid=nobody --regid=nogroup --clear-groups true"})
	} else {
		out = append(out, Check{Status: OK, Name: "run-as", Detail: "root: starts jobs as their owners' Unix users (tried nobody)"})
	}
	emails := make([]string, 0, len(d.UserMap))
	for e := range d.UserMap {
		emails = append(emails, e)
	}
	sort.Strings(emails)
	for _, e := range emails {
		if _, err := user.Lookup(d.UserMap[e]); err != nil {
			out = append(out, Check{Status: Fail, Name: "user-map", Detail: fmt.Sprintf("%s maps to Unix user %q, which this host lacks", e, d.UserMap[e]),
				Fix: fmt.Sprintf("create the user (useradd %s, or join the host to your directory), or fix GPUSCHED_NODE_USER_MAP", d.UserMap[e])})
		}
	}
	if len(emails) > 0 && len(out) == 1 {
		out = append(out, Check{Status: OK, Name: "user-map", Detail: fmt.Sprintf("all %d mapped Unix users exist", len(emails))})
	}
	return out
}

// trySpawnAs starts `true` as name: what the agent does for a job.
func trySpawnAs(name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("no user %s to try with: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	bin, err := exec.LookPath("true")
	if err != nil {
		return err
	}
	cmd := exec.Command(bin)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	return cmd.Run()
}

func (d *Doctor) stateDirCheck() Check {
	if err := os.MkdirAll(d.StateDir, 0o700); err != nil {
		return Check{Status: Fail, Name: "state-dir", Detail: err.Error(), Fix: "give --state-dir (GPUSCHED_NODE_STATE_DIR) a folder the agent may write"}
	}
	f, err := os.CreateTemp(d.StateDir, ".doctor-*")
	if err != nil {
		return Check{Status: Fail, Name: "state-dir", Detail: err.Error(), Fix: "give --state-dir (GPUSCHED_NODE_STATE_DIR) a folder the agent may write"}
	}
	_ = f.Close()
	_ = os.Remove(f.Name())
	abs, _ := filepath.Abs(d.StateDir)
	return Check{Status: OK, Name: "state-dir", Detail: abs + " is writable (running jobs are recorded there)"}
}

func (d *Doctor) portCheck() Check {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(d.Port)))
	if err != nil {
		return Check{Status: Warn, Name: "local-api", Detail: fmt.Sprintf("127.0.0.1:%d is taken (an agent already running here?)", d.Port),
			Fix: "stop what holds it, or give the agent another --port (GPUSCHED_PORT) and set GPUSCHED_URL for gpusched run"}
	}
	_ = ln.Close()
	return Check{Status: OK, Name: "local-api", Detail: fmt.Sprintf("127.0.0.1:%d is free for /status, /jobs, /acquire", d.Port)}
}

func (d *Doctor) serverChecks(ctx context.Context) []Check {
	if d.Client == nil {
		return []Check{{Status: Warn, Name: "server", Detail: "not checked: no server or token given",
			Fix: "give --server URL and the node token (GPUSCHED_SERVER, GPUSCHED_NODE_TOKEN or GPUSCHED_NODE_TOKEN_FILE)"}}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	sent := d.Now()
	self, err := d.Client.NodeSelf(ctx)
	got := d.Now()
	switch {
	case api.IsStatus(err, http.StatusUnauthorized) || api.IsStatus(err, http.StatusForbidden):
		return []Check{{Status: Fail, Name: "server", Detail: "the server refuses the token: " + err.Error(),
			Fix: "issue a node token on the control plane (gpusched token create --node NAME) and give it here"}}
	case api.IsStatus(err, http.StatusNotFound):
		return []Check{{Status: Warn, Name: "server", Detail: "the server is older than this agent (no /api/v1/nodes/self)",
			Fix: "upgrade the control plane first, then the nodes"}}
	case err != nil:
		return []Check{{Status: Fail, Name: "server", Detail: "unreachable: " + err.Error(),
			Fix: "check the URL, DNS, the firewall and the proxy's TLS certificate from this host (curl -v URL/healthz)"}}
	}
	out := []Check{{Status: OK, Name: "server", Detail: fmt.Sprintf("reachable with the token of node %q (server %s)", self.Name, self.ServerVersion)}}
	// The server stamped its time somewhere between sent and got.
	mid := sent.Add(got.Sub(sent) / 2)
	skew := self.ServerTime.Sub(mid)
	abs := max(skew, -skew)
	c := Check{Status: OK, Name: "clock", Detail: fmt.Sprintf("%s off the server's clock (round trip %s)", skew.Round(time.Millisecond), got.Sub(sent).Round(time.Millisecond)),
		Fix: "keep the clock synchronised: enable chrony or systemd-timesyncd (timedatectl set-ntp true)"}
	switch {
	case abs > 10*d.MaxSkew:
		c.Status = Fail
	case abs > d.MaxSkew:
		c.Status = Warn
	}
	return append(out, c)
}

// errNoGPUs is the detail of a host without GPUs.
var errNoGPUs = errors.New("no GPUs found")
