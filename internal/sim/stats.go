package sim

import "math"

// JainIndex is Jain's fairness index of xs (Jain, Chiu and Hawe, 1984):
//
//	J = (Σ xᵢ)² / (n · Σ xᵢ²)
//
// It is 1 when all values are equal and 1/n when one value holds
// everything. It is 0 for no values, and 1 when every value is 0 (all
// equal). Values should not be negative.
func JainIndex(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if sq == 0 {
		return 1
	}
	return sum * sum / (float64(len(xs)) * sq)
}

// mean of xs (0 when empty).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// median of sorted xs: the middle value, or the mean of the two middle ones.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// nearestRank is the p-quantile of sorted xs by the nearest-rank method:
// the ⌈p·n⌉-th smallest value.
func nearestRank(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}
