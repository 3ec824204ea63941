package api

import "testing"

func TestParseMemoryMiB(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want int64
		bad  bool
	}{
		"gigabytes":      {in: "20G", want: 20480},
		"GB":             {in: "20GB", want: 20480},
		"GiB lowercase":  {in: "20gib", want: 20480},
		"megabytes":      {in: "512M", want: 512},
		"MiB":            {in: "512MiB", want: 512},
		"bare number":    {in: "1.5", want: 1536},
		"terabyte":       {in: "0.5T", want: 524288},
		"empty":          {in: "", bad: true},
		"negative":       {in: "-2G", bad: true},
		"words":          {in: "lots", bad: true},
		"unit only":      {in: "G", bad: true},
		"absurdly large": {in: "9e99G", bad: true},
	}
	for name, tc := range tests {
		got, err := ParseMemoryMiB(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("%s: ParseMemoryMiB(%q) = %d, %v; want %d (error %t)", name, tc.in, got, err, tc.want, tc.bad)
		}
	}
}
