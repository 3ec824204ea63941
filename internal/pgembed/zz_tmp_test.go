//go:build unix

package pgembed

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestTmpCancel(t *testing.T) {
	for _, reuse := range []bool{false, true} {
		dataDir := filepath.Join(reachableTempDir(t), "pg")
		for _, d := range []time.Duration{30, 100, 200, 400, 700, 900, 1000, 1100, 1200, 1300, 1400, 1600} {
			if !reuse {
				dataDir = filepath.Join(reachableTempDir(t), "pg")
			} else {
				d = d / 5
			}
			ctx, cancel := context.WithTimeout(context.Background(), d*time.Millisecond)
			s, err := Start(ctx, Options{DataDir: dataDir, Database: "x", Logger: testLogger(t)})
			cancel()
			t.Logf("%v %v: err=%.150v", reuse, d, err)
			if err == nil {
				s.Stop(context.Background())
			}
			if pf, err := readPidFile(dataDir); err == nil && alive(pf.pid) {
				t.Errorf("%v: left server %d", d, pf.pid)
			}
		}
		s := startServer(t, dataDir, "x")
		s.Stop(context.Background())
	}
}
