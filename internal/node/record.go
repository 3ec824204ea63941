package node

import (
	"github.com/gpuscheduler/gpuscheduler/internal/api"

	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// record is what the agent keeps on disk of a run it started, so that an
// agent restarted while the run goes on finds it again instead of starting
// it twice. Runs are named by their start command's id.
type record struct {
	CommandID int64     `json:"command_id"`
	JobID     int64     `json:"job_id"`
	PID       int       `json:"pid"` // 0 until the process started
	User      string    `json:"user"`
	GPUs      []int     `json:"gpus"`
	UUIDs     []string  `json:"uuids,omitempty"` // the devices' UUIDs, MIG devices' among them
	StartedAt time.Time `json:"started_at"`
	Shipped   int64     `json:"shipped"` // bytes of output the server has
	// MasterAddr and MasterPort: where the first part of a multi-node job
	// listens, as this agent chose.
	MasterAddr string `json:"master_addr,omitempty"`
	MasterPort int    `json:"master_port,omitempty"`
	StepPort   int    `json:"step_port,omitempty"` // the batch steps' port (slurm_steps.go)
	// Session and SessionPort are an interactive session's server and its
	// loopback port, so that a restarted agent serves it again.
	Session     *api.SessionStart `json:"session,omitempty"`
	SessionPort int               `json:"session_port,omitempty"`
}

// runFiles names the files of one run in the state folder: the record,
// the output, and the exit status the job's wrapper writes.
type runFiles struct{ dir string }

func (f runFiles) record(id int64) string { return filepath.Join(f.dir, fmt.Sprintf("%d.json", id)) }
func (f runFiles) log(id int64) string    { return filepath.Join(f.dir, fmt.Sprintf("%d.log", id)) }
func (f runFiles) exit(id int64) string   { return filepath.Join(f.dir, fmt.Sprintf("%d.exit", id)) }

// bin is the run's folder of Slurm commands (srun, scontrol), first on
// its PATH.
func (f runFiles) bin(id int64) string { return filepath.Join(f.dir, fmt.Sprintf("%d.bin", id)) }

// key holds a multi-node batch job's step secret, which only the job's
// user may read.
func (f runFiles) key(id int64) string { return filepath.Join(f.dir, fmt.Sprintf("%d.key", id)) }

// save writes rec atomically.
func (f runFiles) save(rec record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("node: save run %d: %w", rec.CommandID, err)
	}
	tmp := f.record(rec.CommandID) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("node: save run %d: %w", rec.CommandID, err)
	}
	if err := os.Rename(tmp, f.record(rec.CommandID)); err != nil {
		return fmt.Errorf("node: save run %d: %w", rec.CommandID, err)
	}
	return nil
}

// all reads every record in the folder.
func (f runFiles) all() ([]record, error) {
	names, err := filepath.Glob(filepath.Join(f.dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("node: list runs: %w", err)
	}
	var out []record
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("node: read run: %w", err)
		}
		var rec record
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("node: run file %s: %w", n, err)
		}
		out = append(out, rec)
	}
	return out, nil
}

// exitCode reads the exit status the wrapper wrote; ok is false while the
// job has not ended (or its wrapper was killed before it could write).
func (f runFiles) exitCode(id int64) (code int, ok bool) {
	b, err := os.ReadFile(f.exit(id))
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return n, err == nil
}

// remove deletes every file of run id.
func (f runFiles) remove(id int64) error {
	var errs []error
	for _, p := range []string{f.record(id), f.log(id), f.exit(id), f.key(id)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(f.bin(id)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
