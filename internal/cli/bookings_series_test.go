package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDays(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"mon-fri":     {"mon", "tue", "wed", "thu", "fri"},
		"Mon,Wed,fri": {"mon", "wed", "fri"},
		"sat-mon":     {"sat", "sun", "mon"},
		"":            nil,
	}
	for in, want := range tests {
		got, err := parseDays(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", in, diff)
		}
	}
	for _, bad := range []string{"funday", "mon-xyz", "mo"} {
		if _, err := parseDays(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
