package scheduler

import (
	"fmt"
	"math"
	"sort"
)

// assignment places waiting jobs on GPU types: Column[i] is the GPU type
// index job i goes to, or −1 when capacity ran out for it.
type assignment struct {
	Column    []int
	transport transport
}

// assign spreads jobs over GPU types with capacities by entropic optimal
// transport: cost[i][j] is job i's cost on type j (+Inf: not allowed),
// demand[i] its GPUs, capacity[j] the free GPUs of type j. When demand and
// capacity differ, a slack column (jobs left waiting, costlier than any
// placement) or a slack row (capacity left idle, free) balances them. The
// fractional plan is rounded greedily: the most confident jobs first, each
// to its most-planned type with room left, so capacities always hold.
func assign(cost [][]float64, demand []int, capacity []int, o sinkhornOptions) (assignment, error) {
	n, m := len(demand), len(capacity)
	if n == 0 {
		return assignment{}, nil
	}
	if len(cost) != n {
		return assignment{}, fmt.Errorf("scheduler: assign has %d cost rows for %d jobs", len(cost), n)
	}
	hi := 0.0
	for _, row := range cost {
		for _, v := range row {
			if finiteNum(v) {
				hi = math.Max(hi, math.Abs(v))
			}
		}
	}
	var need, have int
	rows := make([]float64, n)
	for i, d := range demand {
		if d <= 0 {
			return assignment{}, fmt.Errorf("scheduler: job %d asks for %d GPUs", i, d)
		}
		rows[i], need = float64(d), need+d
	}
	var open []int // GPU types with room: only they enter the solve
	var cols []float64
	for j, c := range capacity {
		if c < 0 {
			return assignment{}, fmt.Errorf("scheduler: GPU type %d has capacity %d", j, c)
		}
		if c > 0 {
			open, cols, have = append(open, j), append(cols, float64(c)), have+c
		}
	}
	out := assignment{Column: make([]int, n)}
	for i := range out.Column {
		out.Column[i] = -1
	}
	if len(open) == 0 {
		return out, nil
	}
	k := len(open)
	c := make([][]float64, n, n+1)
	for i := range n {
		if len(cost[i]) != m {
			return assignment{}, fmt.Errorf("scheduler: assign cost row %d has %d columns for %d GPU types", i, len(cost[i]), m)
		}
		c[i] = make([]float64, k, k+1)
		for x, j := range open {
			c[i][x] = cost[i][j]
		}
	}
	switch {
	case need > have: // some jobs wait: a slack column costlier than any placement
		for i := range n {
			c[i] = append(c[i], 2*hi+1)
		}
		cols = append(cols, float64(need-have))
	case have > need: // some GPUs stay idle: a free slack row
		c = append(c, make([]float64, k))
		rows = append(rows, float64(have-need))
	}
	t, err := sinkhorn(c, rows, cols, o)
	if err != nil {
		return assignment{}, err
	}
	out.transport = t
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	conf := func(i int) float64 { return maxOf(t.Plan[i][:k]) / rows[i] }
	sort.SliceStable(order, func(a, b int) bool { return conf(order[a]) > conf(order[b]) })
	left := append([]float64(nil), cols[:k]...)
	for _, i := range order {
		best := -1
		for x, j := range open {
			if left[x] >= rows[i] && !math.IsInf(cost[i][j], 1) && (best < 0 || t.Plan[i][x] > t.Plan[i][best]) {
				best = x
			}
		}
		waits := len(t.Plan[i]) > k && t.Plan[i][k] > t.Plan[i][max(best, 0)]
		if best >= 0 && !waits {
			out.Column[i], left[best] = open[best], left[best]-rows[i]
		}
	}
	return out, nil
}

func maxOf(xs []float64) float64 {
	top := math.Inf(-1)
	for _, x := range xs {
		top = math.Max(top, x)
	}
	return top
}
