//go:build !unix

package pgembed

import (
	"context"
	"errors"
	"runtime"
)

// errUnsupported is Start's answer on systems other than Unix.
var errUnsupported = errors.New("pgembed: a private PostgreSQL is not supported on " + runtime.GOOS + ": set DATABASE_URL")

// Server is a running private PostgreSQL; on this system there is none.
type Server struct{}

// Start fails: private servers need a Unix system.
func Start(ctx context.Context, opts Options) (*Server, error) { return nil, errUnsupported }

// URL returns "": there is no server on this system.
func (s *Server) URL() string { return "" }

// Stop does nothing: there is no server on this system.
func (s *Server) Stop(ctx context.Context) error { return nil }

// Running reports false: there is no server on this system.
func Running(dataDir, database string) (url string, ok bool) { return "", false }

// PID is 0: no server runs.
func (s *Server) PID() int { return 0 }
