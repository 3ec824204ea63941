package models

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/puretest"
)

// TestSpeaksTheWireContract fails if the domain imports the API's Go
// client: the state names and wire types it shares with the API come from
// internal/api (DESIGN.md, Layout).
func TestSpeaksTheWireContract(t *testing.T) {
	t.Parallel()
	puretest.DoesNotImport(t, "models take the API's names from internal/api, never from its client",
		"github.com/gpuscheduler/gpuscheduler/internal/apiclient")
}
