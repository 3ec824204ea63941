package scoring

import (
	"fmt"
	"math"
	"testing"
)

// One decision over 8 candidate GPU types with learned state.
func BenchmarkDecide(b *testing.B) {
	c := DefaultConfig()
	st := State{Runtime: map[Key]Moments{}, Interference: map[Pair]Moments{}}
	var cands []string
	for g := range 8 {
		name := fmt.Sprintf("gpu-%d", g)
		cands = append(cands, name)
		for k := range 5 {
			st.Runtime[Key{"train-bert", name}] = st.Runtime[Key{"train-bert", name}].Add(math.Log(float64(60 + g*10 + k)))
		}
	}
	ex := NewExplorer(c.ExplorationCap, c.Window)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decide(st, Request{JobType: "train-bert", Candidates: cands}, ex); err != nil {
			b.Fatal(err)
		}
	}
}
