package api

import "testing"

// TestParseTimeLimit: Go durations and every Slurm form of --time, a bare
// number being minutes as in Slurm; 0 and nonsense are refused.
func TestParseTimeLimit(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want Seconds
		bad  bool
	}{
		"go hours":         {in: "2h", want: 7200},
		"go mixed":         {in: "1h30m", want: 5400},
		"go seconds":       {in: "5s", want: 5},
		"minutes":          {in: "90", want: 5400},
		"minutes seconds":  {in: "5:30", want: 330},
		"hours":            {in: "02:00:00", want: 7200},
		"days hours":       {in: "1-12", want: 36 * 3600},
		"days hours mins":  {in: "1-00:30", want: 24*3600 + 1800},
		"days full":        {in: "2-01:02:03", want: 2*86400 + 3723},
		"zero":             {in: "0", bad: true},
		"negative":         {in: "-5m", bad: true},
		"words":            {in: "soon", bad: true},
		"too many colons":  {in: "1:2:3:4", bad: true},
		"over thirty days": {in: "31-00", bad: true},
		"empty":            {in: "", bad: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTimeLimit(tc.in)
			if tc.bad {
				if err == nil {
					t.Fatalf("ParseTimeLimit(%q) = %d, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseTimeLimit(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
}
