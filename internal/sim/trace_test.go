package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadTraceDetectsFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, tc := range map[string]struct{ body, format, want string }{
		"alibaba":           {alibabaHeader + "p0,1,1,1,1000,,LS,Running,0,100,0\n", "", FormatAlibaba},
		"tiresias":          {tiresiasHeader + "0,1,0,606,vgg19,164,30\n", "", FormatTiresias},
		"csv":               {"id,user,submit_s,duration_s,gpus\na,ana,0,60,2\n", "", FormatCSV},
		"philly csv":        {"timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,11cb48\n", "", FormatPhillyCSV},
		"explicit tiresias": {tiresiasHeader + "0,1,0,606,vgg19,164,30\n", FormatTiresias, FormatTiresias},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, name+".csv")
			if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			tr, err := ReadTrace(path, tc.format, ReadOptions{Users: 15, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Format != tc.want || len(tr.Jobs) != 1 || tr.File != path {
				t.Errorf("format %q, %d jobs, file %q", tr.Format, len(tr.Jobs), tr.File)
			}
		})
	}
}

func TestReadTraceErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd.csv")
	if err := os.WriteFile(odd, []byte("a,b,c\n1,2,3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		path, format string
		users        int
		want         string
	}{
		"missing file":   {filepath.Join(dir, "none.csv"), "", 15, "open trace"},
		"unknown header": {odd, "", 15, "cannot tell the trace format"},
		"unknown format": {odd, "parquet", 15, `format "parquet"`},
		"no users":       {odd, FormatCSV, 0, "users must be at least 1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadTrace(tc.path, tc.format, ReadOptions{Users: tc.users})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestUserOfIsDeterministicAndSpread(t *testing.T) {
	t.Parallel()
	count := map[int64]int{}
	for i := range 1500 {
		name := "openb-pod-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('0'+i%10)) + string(rune(i))
		u := userOf(name, 42, 15)
		if u != userOf(name, 42, 15) || u < 1 || u > 15 {
			t.Fatalf("user %d for %q", u, name)
		}
		count[u]++
	}
	if len(count) != 15 {
		t.Errorf("only %d of 15 users got jobs", len(count))
	}
	if userOf("openb-pod-0001", 1, 1000) == userOf("openb-pod-0001", 2, 1000) && userOf("openb-pod-0002", 1, 1000) == userOf("openb-pod-0002", 2, 1000) {
		t.Error("the seed does not change the assignment")
	}
}
