package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/gpuscheduler/gpuscheduler/models"
)

// Eventually and WaitListening are the package's waits, for its external
// tests too.
var (
	Eventually    = eventually
	WaitListening = waitListening
)

// eventually polls cond until it holds and reports whether it did within limit.
func eventually(limit time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(limit); !cond(); <-time.After(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// waitListening returns once l delivers notifications: NOTIFY sent before
// its LISTEN are lost. It probes on the gpus channel, which the kicker
// does not follow.
func waitListening(t *testing.T, db *models.DB, l *models.Listener) {
	t.Helper()
	probe, cancel := l.Subscribe(models.Topic(models.ChannelGPUs))
	defer cancel()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if err := models.Signal(context.Background(), db.Bun, models.ChannelGPUs, "probe"); err != nil {
			t.Fatal(err)
		}
		select {
		case <-probe:
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatal("the listener delivered nothing within 10s")
}
