package sim

import (
	"maps"
	"math"
	"slices"
	"time"
)

// SlowdownFloor is the runtime below which a job's slowdown is computed as
// if it ran this long (bounded slowdown), so that a 1-second job waiting a
// minute does not dominate the fairness index.
const SlowdownFloor = 10 * time.Second

// Metrics summarise one replay under one policy. The JSON keys are stable:
// scripts read them.
type Metrics struct {
	Policy       string  `json:"policy"`        // the policy's name
	Jobs         int     `json:"jobs"`          // jobs that completed
	AvgWait      float64 `json:"avg_wait_s"`    // first start − arrival, seconds
	MedianWait   float64 `json:"median_wait_s"` // middle value (mean of the two middle ones)
	P95Wait      float64 `json:"p95_wait_s"`    // nearest rank: the ⌈0.95·n⌉-th smallest
	AvgJCT       float64 `json:"avg_jct_s"`     // completion − arrival, seconds
	Makespan     float64 `json:"makespan_s"`    // last completion − first arrival, seconds
	Utilization  float64 `json:"utilization"`   // GPU-seconds held / (cluster GPUs × makespan)
	JainFairness float64 `json:"jain_fairness"` // Jain's index over users' mean bounded slowdown
	Preemptions  int     `json:"preemptions"`   // runs the core stopped
	OfferedLoad  float64 `json:"offered_load"`  // of the workload on the cluster (see OfferedLoad)

	AvgSlowdown    float64 `json:"avg_slowdown"`     // mean bounded slowdown over jobs
	Unschedulable  int     `json:"unschedulable"`    // jobs dropped: they could never start
	Backfilled     int     `json:"backfilled"`       // starts marked as backfilled
	LostGPUSeconds float64 `json:"lost_gpu_s"`       // GPU-seconds of runs lost to preemption
	Passes         int     `json:"scheduler_passes"` // scheduling passes run

	// Detail is what the HTML report draws (report_html.go).
	Detail *Detail `json:"-"`

	P95JCT    float64 `json:"p95_jct_s"`  // nearest rank
	LostShare float64 `json:"lost_share"` // lost_gpu_s over the GPU-seconds held
	// MeanRho and MaxRho are the mean and largest finish-time fairness ρ
	// over users (see Summarize); 1 is what the user would get alone on
	// 1/N of the cluster, above 1 worse.
	MeanRho float64 `json:"mean_rho"`
	MaxRho  float64 `json:"max_rho"`
}

// Summarize computes the metrics of a replay on a cluster of gpus GPUs.
//
// Finish-time fairness (Themis): a user's ρ is the sum of their JCTs over
// the sum of what each job would take alone on the user's 1/N of the
// cluster (N users of the workload): runtime × max(1, GPUs / (GPUs of the
// cluster / N)).
//
// Each job's bounded slowdown is JCT / max(runtime, SlowdownFloor), at
// least 1; fairness is Jain's index (JainIndex) over the mean bounded
// slowdown of each user with a completed job: 1 when every user's jobs
// are slowed alike, 1/n when one user bears all the delay.
func Summarize(policy string, r *Result, gpus int, offeredLoad float64) Metrics {
	m := Metrics{
		Policy: policy, Preemptions: r.Preemptions, OfferedLoad: offeredLoad,
		Unschedulable: r.Unschedulable, Backfilled: r.Backfilled,
		LostGPUSeconds: r.LostGPUSeconds, Passes: r.Passes,
	}
	var waits, jcts []float64
	var jct, slow float64
	rhoNum, rhoDen := map[int64]float64{}, map[int64]float64{}
	users := map[int64]bool{}
	for _, rec := range r.Records {
		users[rec.Job.User] = true
	}
	fairGPUs := float64(gpus) / float64(max(1, len(users)))
	first, last := time.Duration(math.MaxInt64), time.Duration(0)
	userSlow := map[int64][]float64{}
	var jobWaits []JobWait
	for _, rec := range r.Records {
		first = min(first, rec.Job.Submit)
		if !rec.Done {
			continue
		}
		last = max(last, rec.End)
		waits = append(waits, (rec.FirstStart - rec.Job.Submit).Seconds())
		jobWaits = append(jobWaits, JobWait{rec.Job.ID, waits[len(waits)-1]})
		c := (rec.End - rec.Job.Submit).Seconds()
		jct += c
		jcts = append(jcts, c)
		rhoNum[rec.Job.User] += c
		rhoDen[rec.Job.User] += rec.Job.Runtime.Seconds() * max(1, float64(rec.Job.GPUs)/fairGPUs)
		sd := max(1, c/max(rec.Job.Runtime, SlowdownFloor).Seconds())
		slow += sd
		userSlow[rec.Job.User] = append(userSlow[rec.Job.User], sd)
	}
	m.Jobs = len(waits)
	if m.Jobs == 0 {
		return m
	}
	n := float64(m.Jobs)
	m.AvgWait, m.AvgJCT, m.AvgSlowdown = mean(waits), jct/n, slow/n
	slices.Sort(waits)
	m.MedianWait, m.P95Wait = median(waits), nearestRank(waits, 0.95)
	m.Makespan = (last - first).Seconds()
	if m.Makespan > 0 && gpus > 0 {
		m.Utilization = r.BusyGPUSeconds / (float64(gpus) * m.Makespan)
	}
	var perUser []float64
	for _, u := range slices.Sorted(maps.Keys(userSlow)) {
		perUser = append(perUser, mean(userSlow[u]))
	}
	m.JainFairness = JainIndex(perUser)
	slices.Sort(jcts)
	m.P95JCT = nearestRank(jcts, 0.95)
	if r.BusyGPUSeconds > 0 {
		m.LostShare = r.LostGPUSeconds / r.BusyGPUSeconds
	}
	var rhos []float64
	for _, u := range slices.Sorted(maps.Keys(rhoNum)) {
		if rhoDen[u] > 0 {
			rho := rhoNum[u] / rhoDen[u]
			rhos = append(rhos, rho)
			m.MaxRho = max(m.MaxRho, rho)
		}
	}
	if len(rhos) > 0 {
		m.MeanRho = mean(rhos)
	}
	d := &Detail{Waits: waits, JCTs: jcts, Slowdown: map[int64]float64{}, JobWaits: jobWaits}
	for u, xs := range userSlow {
		d.Slowdown[u] = mean(xs)
	}
	d.UtilT, d.Util = utilization(r, gpus, 300)
	m.Detail = d
	return m
}
