//go:build unix

package pgembed

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartErrors covers the failures found before any server starts.
func TestStartErrors(t *testing.T) {
	t.Parallel()
	needBinaries(t)
	closed := t.TempDir() // mode 0700: shuts out the postgres user under root
	tests := map[string]struct {
		opts     Options
		want     string
		wantIs   error
		rootOnly bool
	}{
		"no logger": {
			opts: Options{DataDir: filepath.Join(t.TempDir(), "pg")},
			want: "Logger is required",
		},
		"no data folder": {
			opts: Options{Logger: testLogger(t)},
			want: "DataDir is required",
		},
		"bad database name": {
			opts: Options{DataDir: filepath.Join(t.TempDir(), "pg"), Database: strings.Repeat("x", 64), Logger: testLogger(t)},
			want: "invalid database name",
		},
		"bin folder without binaries": {
			opts:   Options{DataDir: filepath.Join(t.TempDir(), "pg"), BinDir: t.TempDir(), Logger: testLogger(t)},
			wantIs: ErrNoBinaries,
		},
		"data folder unreachable by the server user": {
			opts:     Options{DataDir: filepath.Join(closed, "pg"), Logger: testLogger(t)},
			want:     filepath.Dir(closed) + " (mode -rwx------) does not let it through",
			rootOnly: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.rootOnly && os.Geteuid() != 0 {
				t.Skip("needs root")
			}
			s, err := Start(context.Background(), tc.opts)
			if err == nil {
				_ = s.Stop(context.Background())
				t.Fatal("Start succeeded")
			}
			t.Log(err)
			if tc.want != "" && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("err = %v, want errors.Is %v", err, tc.wantIs)
			}
			if tc.rootOnly && !strings.Contains(err.Error(), "GPUSCHED_DATA_DIR") {
				t.Errorf("err = %v, want a hint at GPUSCHED_DATA_DIR", err)
			}
		})
	}
}
