package scheduler

import (
	"math"
	"strconv"
)

// quotaEps absorbs the rounding of sums of fractions (three thirds are 1).
const quotaEps = 1e-9

// within reports whether x GPUs fit under limit.
func within(x float64, limit int) bool { return x <= float64(limit)+quotaEps }

// heldFraction is what running job r counts against quotas: the part of a
// GPU each of its devices is (a slot of a GPU shared 4 ways 0.25, a
// 1g.10gb slice of an H100 1/7, a whole GPU 1), summed; a device no longer
// in the snapshot counts as a whole GPU, but a share job never counts as
// more than the one GPU its slots are part of.
func (p *pass) heldFraction(r running) float64 {
	n := float64(len(r.job.GPUs) - len(r.gpus))
	for _, gi := range r.gpus {
		n += p.gpus[gi].frac
	}
	if r.job.IsShare() {
		n = min(n, 1)
	}
	return n
}

// quotaNeed is the least a pending job adds to its owner's use wherever it
// is placed: its GPUCount of whole GPUs; for a MIG job that many of the
// smallest matching devices' fraction; for a share job its share, and at
// least one slot of the most finely shared matching GPU.
func (p *pass) quotaNeed(j *Job, f *filter) float64 {
	switch {
	case j.IsShare():
		return max(j.GPUShare, p.leastFraction(f))
	case IsMIGProfile(j.GPUModel):
		return float64(j.GPUCount) * p.leastFraction(f)
	}
	return float64(j.GPUCount)
}

// leastFraction is the smallest fraction of a GPU among the devices f
// matches; 1 when it matches none.
func (p *pass) leastFraction(f *filter) float64 {
	least := 1.0
	for gi := range p.gpus {
		if f.ok(p, int32(gi)) {
			least = min(least, p.gpus[gi].frac)
		}
	}
	return least
}

// amount writes a number of GPUs for a sentence: "2", "0.25", "1.143".
func amount(x float64) string {
	return strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64)
}

// amountGPUs is amount with its noun: "1 GPU", "2 GPUs", "0.25 GPUs".
func amountGPUs(x float64) string {
	if r := math.Round(x); math.Abs(x-r) < quotaEps {
		return countGPUs(int(r))
	}
	return amount(x) + " GPUs"
}
