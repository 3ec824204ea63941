package node

import (
	"os"
	"os/user"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// An agent told to run jobs as itself does so even as root and for an owner
// with no Unix user; otherwise, as root, such an owner is refused with the fix.
func TestJobIdentity(t *testing.T) {
	t.Parallel()
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	noUnix := &api.StartJob{JobID: 1, Owner: "ana@example.com"}
	self, err := jobIdentity(noUnix, nil, true)
	if err != nil || self.name != me.Username || self.uid != os.Getuid() || self.cred != nil {
		t.Fatalf("asSelf: %+v, %v; want %s (uid %d) with no credential switch", self, err, me.Username, os.Getuid())
	}
	_, err = jobIdentity(noUnix, nil, false)
	switch {
	case os.Geteuid() != 0 && err != nil:
		t.Fatalf("not root: %v; want the agent's own user", err)
	case os.Geteuid() == 0 && (err == nil || !strings.Contains(err.Error(), "gpusched user set-unix-user --email ana@example.com")):
		t.Fatalf("root, owner without a Unix user: %v; want a refusal naming the fix", err)
	}
}
