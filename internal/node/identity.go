package node

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// identity is who a job runs as.
type identity struct {
	name string
	home string
	uid  int
	gid  int
	cred *syscall.Credential // nil: as the agent itself
}

// jobIdentity decides who runs s. An agent running as root runs the job
// as its owner's Unix user (the user's unix_user, or the agent's own
// mapping from the owner's email); one running as anyone else, or told to
// (asSelf), runs every job as itself.
func jobIdentity(s *api.StartJob, mapping map[string]string, asSelf bool) (identity, error) {
	if asSelf || os.Geteuid() != 0 {
		me, err := user.Current()
		if err != nil {
			return identity{}, fmt.Errorf("node: who am I: %w", err)
		}
		// Running as itself, the agent's HOME is the user's home as their
		// shell knows it (the account database's when HOME is unset).
		home := me.HomeDir
		if h := os.Getenv("HOME"); filepath.IsAbs(h) {
			home = h
		}
		return identity{name: me.Username, home: home, uid: os.Getuid(), gid: os.Getgid()}, nil
	}
	name := s.UnixUser
	if m, ok := mapping[strings.ToLower(s.Owner)]; ok {
		name = m
	}
	if name == "" {
		return identity{}, fmt.Errorf("%s has no Unix user to run as; an admin maps one with: gpusched user set-unix-user --email %s --unix-user NAME", s.Owner, s.Owner)
	}
	u, err := user.Lookup(name)
	if err != nil {
		return identity{}, fmt.Errorf("unix user %q of %s does not exist on this host: %w", name, s.Owner, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	if gids, err := u.GroupIds(); err == nil {
		for _, g := range gids {
			if n, err := strconv.Atoi(g); err == nil {
				cred.Groups = append(cred.Groups, uint32(n))
			}
		}
	}
	return identity{name: u.Username, home: u.HomeDir, uid: uid, gid: gid, cred: cred}, nil
}
