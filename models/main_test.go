package models_test

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }
