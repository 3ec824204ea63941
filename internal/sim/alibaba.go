package sim

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/scheduler"
)

// qosPriority maps an Alibaba/Kubernetes QoS class to a job priority:
// Guaranteed and LS (latency-sensitive) high, Burstable normal, BE
// (best-effort) low; anything else normal.
func qosPriority(qos string) int {
	switch strings.ToLower(qos) {
	case "guaranteed", "ls":
		return scheduler.PriorityHigh
	case "be", "besteffort":
		return scheduler.PriorityLow
	}
	return scheduler.PriorityNormal
}

// ReadAlibabaOpenB reads the pods file of Alibaba's cluster-trace-gpu-v2023
// ("openb"): name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,
// pod_phase,creation_time,deletion_time,scheduled_time, times in seconds.
//
// Arrival is creation_time; runtime is deletion_time − scheduled_time (pods
// still Running at the trace end are cut off there). CPU-only pods
// (num_gpu = 0 and gpu_milli = 0) are skipped, and so are pods that never
// ran (no scheduled_time or deletion_time, or runtime ≤ 0); both are
// counted in Trace.Skipped. A pod using a fraction of a GPU (gpu_milli <
// 1000) asks for 1 whole GPU (its Share keeps the fraction: on a cluster
// with MIG it asks for a slice instead, see assignSlices).
// gpu_spec is ignored (the simulated cluster has one model). Users are
// assigned by hashing the pod name (see ReadOptions); qos maps to priority
// as qosPriority says.
func ReadAlibabaOpenB(r io.Reader, file string, opt ReadOptions) (*Trace, error) {
	if opt.Users < 1 {
		return nil, fmt.Errorf("users must be at least 1, not %d", opt.Users)
	}
	t, err := openTable(r, file, "name", "num_gpu", "gpu_milli", "qos", "creation_time", "deletion_time", "scheduled_time")
	if err != nil {
		return nil, err
	}
	tr := &Trace{File: file, Format: FormatAlibaba, Users: hashedUsers(opt.Users)}
	fractional := 0
	for {
		more, err := t.next()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		tr.Rows++
		name := t.str("name")
		if name == "" {
			return nil, t.errAt("name", errors.New("the pod name is empty"))
		}
		gpus, _, err := t.int("num_gpu")
		if err == nil && gpus < 0 {
			err = t.errAt("num_gpu", fmt.Errorf("%d GPUs is negative", gpus))
		}
		if err != nil {
			return nil, err
		}
		milli, _, err := t.int("gpu_milli")
		if err == nil && (milli < 0 || milli > 1000) {
			err = t.errAt("gpu_milli", fmt.Errorf("%d is not between 0 and 1000", milli))
		}
		if err != nil {
			return nil, err
		}
		if gpus == 0 && milli == 0 {
			tr.skip("cpu-only")
			continue
		}
		share := 0.0
		if milli > 0 && milli < 1000 {
			fractional++
			share = float64(milli) / 1000
		}
		gpus = max(gpus, 1)
		created, ok, err := t.float("creation_time")
		if err == nil && !ok {
			err = t.errAt("creation_time", errors.New("the creation time is empty"))
		}
		if err != nil {
			return nil, err
		}
		scheduled, okS, err := t.float("scheduled_time")
		if err != nil {
			return nil, err
		}
		deleted, okD, err := t.float("deletion_time")
		if err != nil {
			return nil, err
		}
		if !okS || !okD || deleted-scheduled <= 0 {
			tr.skip("never ran")
			continue
		}
		tr.Jobs = append(tr.Jobs, Job{
			ID: int64(len(tr.Jobs) + 1), Name: name, User: userOf(name, opt.Seed, opt.Users),
			Submit: seconds(created), Runtime: seconds(deleted - scheduled),
			GPUs: gpus, Priority: qosPriority(t.str("qos")), Share: share,
		})
	}
	tr.Notes = append(tr.Notes,
		"arrival = creation_time; runtime = deletion_time - scheduled_time (cut at trace end)",
		fmt.Sprintf("%d fractional-GPU pods (gpu_milli < 1000): 1 whole GPU each, a MIG slice with --mig", fractional),
		hashedUsersNote("pod name", opt),
		"qos -> priority: Guaranteed, LS high; Burstable normal; BE low",
	)
	return tr, nil
}
