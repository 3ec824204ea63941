package words

import "testing"

func TestCount(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		n    int
		noun string
		want string
	}{
		"one GPU":        {1, "GPU", "1 GPU"},
		"two GPUs":       {2, "GPU", "2 GPUs"},
		"no jobs":        {0, "job", "0 jobs"},
		"one job":        {1, "job", "1 job"},
		"entries":        {3, "entry", "3 entries"},
		"one entry":      {1, "entry", "1 entry"},
		"minus one slot": {-1, "slot", "-1 slot"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := Count(tc.n, tc.noun); got != tc.want {
				t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
			}
		})
	}
}

func TestPluralVerbs(t *testing.T) {
	t.Parallel()
	if got := Plural(1, "is") + "/" + Plural(2, "is"); got != "is/are" {
		t.Errorf("Plural of is = %q, want is/are", got)
	}
}
