package web_test

import (
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }
