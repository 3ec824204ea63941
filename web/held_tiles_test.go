package web_test

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testserver"
)

var heldTile = regexp.MustCompile(`data-state="held"`)

// A hold by count (the client agent's) marks, once a pass has placed it, as
// many GPU tiles held on the overview; when the hold is canceled they are
// free again.
func TestHoldShowsOnTiles(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	registerGPUs(t, s, "gpu-a", 4)
	tok, _ := s.UserToken(t, "member")
	viewer := s.Login(t, "viewer@example.com")
	held := func() int { return len(heldTile.FindAllString(getPage(t, viewer, s.URL+"/fragments/cluster"), -1)) }

	st, body := s.Do(t, "POST", "/api/gpuscheduler/v1/allocate", tok, `{"gpu_count":2}`)
	if st != http.StatusAccepted {
		t.Fatalf("hold: %d %s", st, body)
	}
	waitFor(t, "2 tiles held", func() bool { return held() == 2 })
	var hold struct {
		ID int64 `json:"id"`
	}
	mustJSON(t, body, &hold)
	if st, body := s.Do(t, "DELETE", fmt.Sprintf("/api/v1/holds/%d", hold.ID), tok, ""); st != http.StatusOK {
		t.Fatalf("cancel the hold: %d %s", st, body)
	}
	waitFor(t, "no tile held", func() bool { return held() == 0 })
}
