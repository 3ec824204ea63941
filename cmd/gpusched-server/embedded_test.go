package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/gpuscheduler/gpuscheduler/internal/pgembed"
)

// Without DATABASE_URL, admin commands reach the embedded database of the
// running dev server (a second terminal), or start and stop one themselves.
func TestCommandsUseTheEmbeddedDatabase(t *testing.T) {
	dir := t.TempDir()
	if os.Geteuid() == 0 { // the server runs as an unprivileged user who must enter the folder
		for _, d := range []string{dir, filepath.Dir(dir)} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv("DATABASE_URL", "")
	t.Setenv("GPUSCHED_DATA_DIR", dir)
	pgDir := filepath.Join(dir, "postgres")

	// No server yet: the command starts one, and stops it when done.
	if out, err := gpusched(t, "user", "create", "--email", "ana@example.com"); err != nil || strings.TrimSpace(out) != "1" {
		t.Fatalf("user create with no server running: %q %v", out, err)
	}
	if _, ok := pgembed.Running(pgDir, embeddedDatabase); ok {
		t.Fatal("the command left its embedded PostgreSQL running")
	}

	// A running server (the dev server's) is used as it is, and left running.
	srv, err := pgembed.Start(context.Background(), pgembed.Options{DataDir: pgDir, Database: embeddedDatabase,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop(context.Background()) })
	tok, err := gpusched(t, "token", "create", "--user", "ana@example.com")
	if err != nil || !strings.HasPrefix(tok, "gsu_") {
		t.Fatalf("token create against the running server: %q %v", tok, err)
	}
	if _, ok := pgembed.Running(pgDir, embeddedDatabase); !ok {
		t.Fatal("the command stopped a server it did not start")
	}
	conn, err := pgx.Connect(context.Background(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE u.email = 'ana@example.com'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("tokens of ana in the embedded database: %d %v", n, err)
	}
}
