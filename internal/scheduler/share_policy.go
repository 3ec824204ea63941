package scheduler

import "time"

// Actions of the GPU memory overrun policy.
const (
	OverrunStop = "stop" // warn, then stop the job after the grace
	OverrunWarn = "warn" // warn only
)

// DefaultOverrunGrace is how long a share job may stay over its memory
// before it is stopped when the policy names no grace.
const DefaultOverrunGrace = Duration(time.Minute)

// MemoryOverrunPolicy says what happens to a job on a shared GPU whose
// processes use more GPU memory than its share (policy key
// gpu_memory_overrun: {"action": "stop", "grace": "60s"}): its owner is
// warned at once, and with action stop the job is stopped once it has
// stayed over for the grace.
type MemoryOverrunPolicy struct {
	Action string   `json:"action,omitempty"` // OverrunStop (default) or OverrunWarn
	Grace  Duration `json:"grace,omitempty"`  // 0: DefaultOverrunGrace
}

// Stops reports whether an overrun that began at since is to be stopped
// at now.
func (p MemoryOverrunPolicy) Stops(since, now time.Time) bool {
	return p.Action != OverrunWarn && !now.Before(since.Add(time.Duration(p.grace())))
}

// grace is the grace in force.
func (p MemoryOverrunPolicy) grace() Duration {
	if p.Grace <= 0 {
		return DefaultOverrunGrace
	}
	return p.Grace
}

// EffectiveGrace is the grace the policy gives (its own, else the default).
func (p MemoryOverrunPolicy) EffectiveGrace() time.Duration { return time.Duration(p.grace()) }

func (p MemoryOverrunPolicy) validate() []error {
	var errs []error
	if p.Action != "" && p.Action != OverrunStop && p.Action != OverrunWarn {
		errs = append(errs, keyErr("gpu_memory_overrun.action", "gpu_memory_overrun.action %q is not one of stop, warn", p.Action))
	}
	if p.Grace < 0 {
		errs = append(errs, keyErr("gpu_memory_overrun.grace", "gpu_memory_overrun.grace must not be negative"))
	}
	return errs
}

// SessionShare is the share of one shared GPU a session (a notebook) takes
// when it names no GPUs, by the policy key session_gpu_share (0 < share ≤
// 1); ok false when the policy gives sessions whole GPUs (0, the default).
// Session code asks a share job of this fraction (Job.GPUShare) instead of
// a whole GPU.
func (c Config) SessionShare() (float64, bool) {
	return c.SessionGPUShare, c.SessionGPUShare > 0 && c.SessionGPUShare <= 1
}

func validateSessionShare(s float64) []error {
	if s < 0 || s > 1 {
		return []error{keyErr("session_gpu_share", "session_gpu_share must be between 0 (whole GPUs) and 1, got %g", s)}
	}
	return nil
}
