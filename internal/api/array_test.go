package api

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseArray: Slurm's --array forms, their normal spelling, and the
// mistakes, each with a sentence.
func TestParseArray(t *testing.T) {
	t.Parallel()
	seq := func(lo, hi, step int) []int {
		var out []int
		for i := lo; i <= hi; i += step {
			out = append(out, i)
		}
		return out
	}
	tests := map[string]struct {
		in     string
		want   ArraySpec
		spells string
		bad    string
	}{
		"range with a limit": {in: "0-99%8", want: ArraySpec{Tasks: seq(0, 99, 1), MaxRunning: 8}, spells: "0-99%8"},
		"list and range":     {in: "1,3,5-7", want: ArraySpec{Tasks: []int{1, 3, 5, 6, 7}}, spells: "1,3,5-7"},
		"step":               {in: "0-15:4", want: ArraySpec{Tasks: []int{0, 4, 8, 12}}, spells: "0,4,8,12"},
		"step and limit":     {in: "0-15:4%2", want: ArraySpec{Tasks: []int{0, 4, 8, 12}, MaxRunning: 2}, spells: "0,4,8,12%2"},
		"one task":           {in: "7", want: ArraySpec{Tasks: []int{7}}, spells: "7"},
		"repeats count once": {in: "3,1-3", want: ArraySpec{Tasks: []int{1, 2, 3}}, spells: "1-3"},
		"ten thousand":       {in: "0-9999", want: ArraySpec{Tasks: seq(0, 9999, 1)}, spells: "0-9999"},
		"too many":           {in: "0-10000", bad: "10001 tasks, at most 10000"},
		"far too many":       {in: "0-4000000", bad: "more than 10000 tasks"},
		"backwards":          {in: "9-3", bad: "the range ends before it starts"},
		"zero limit":         {in: "0-9%0", bad: "a number from 1"},
		"bad limit":          {in: "0-9%x", bad: "a number from 1"},
		"bad step":           {in: "0-9:0", bad: "the step after : must be a number from 1"},
		"step of one id":     {in: "5:2", bad: "is not a task id"},
		"negative":           {in: "-1-5", bad: "is not a task id"},
		"words":              {in: "all", bad: "is not a task id"},
		"empty":              {in: "", bad: "give task ids"},
		"only a limit":       {in: "%4", bad: "give task ids"},
		"id too high":        {in: "4000001", bad: "is not a task id"},
		"empty item":         {in: "1,,2", bad: "is not a task id"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseArray(tc.in)
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Fatalf("ParseArray(%q) = %v, %v; want an error saying %q", tc.in, got.String(), err, tc.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if got.String() != tc.spells {
				t.Errorf("String() = %q, want %q", got.String(), tc.spells)
			}
		})
	}
}
