package sim

import (
	"errors"
	"fmt"
	"time"
)

// OfferedLoad is the load jobs offer a cluster of gpus GPUs: the GPU-seconds
// they ask for over the GPU-seconds available while they arrive,
//
//	Σ(gpus × runtime) / (cluster GPUs × (last arrival − first arrival)).
//
// ok is false when it is undefined: no jobs, or every job arrives at once.
func OfferedLoad(jobs []Job, gpus int) (load float64, ok bool) {
	first, last, ok := arrivalSpan(jobs)
	if !ok || last == first || gpus < 1 {
		return 0, false
	}
	demand := 0.0
	for _, j := range jobs {
		demand += float64(j.GPUs) * j.Runtime.Seconds()
	}
	return demand / (float64(gpus) * (last - first).Seconds()), true
}

// ScaleToLoad compresses (factor < 1) or stretches (factor > 1) the arrival
// times of jobs, in place, so that their offered load on gpus GPUs is
// target: every arrival's offset from the first arrival is multiplied by
// the same factor, which it returns. Runtimes are not changed.
func ScaleToLoad(jobs []Job, gpus int, target float64) (factor float64, err error) {
	if target <= 0 {
		return 0, fmt.Errorf("load %g: want a positive offered load", target)
	}
	load, ok := OfferedLoad(jobs, gpus)
	if !ok || load == 0 {
		return 0, errors.New("cannot scale to a load: the jobs all arrive at the same time or ask for nothing")
	}
	factor = load / target
	ScaleArrivals(jobs, factor)
	return factor, nil
}

// ScaleArrivals multiplies every arrival's offset from the first arrival
// by factor, in place.
func ScaleArrivals(jobs []Job, factor float64) {
	first, _, ok := arrivalSpan(jobs)
	if !ok {
		return
	}
	for i := range jobs {
		jobs[i].Submit = first + time.Duration(float64(jobs[i].Submit-first)*factor)
	}
}

// arrivalSpan is the first and last arrival of jobs; ok is false when
// there are none.
func arrivalSpan(jobs []Job) (first, last time.Duration, ok bool) {
	if len(jobs) == 0 {
		return 0, 0, false
	}
	first, last = jobs[0].Submit, jobs[0].Submit
	for _, j := range jobs[1:] {
		first, last = min(first, j.Submit), max(last, j.Submit)
	}
	return first, last, true
}
