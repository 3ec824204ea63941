// Package testdb gives each test its own real PostgreSQL database, cloned
// from a migrated template (pgtestdb). The server is TEST_DATABASE_URL if
// set, else the local server on 127.0.0.1:5432, else a private one started
// from the system's binaries for the test process (internal/pgembed).
package testdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver pgtestdb opens
	"github.com/peterldowns/pgtestdb"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/gpuscheduler/gpuscheduler/internal/pgembed"
	"github.com/gpuscheduler/gpuscheduler/migrations"
	"github.com/gpuscheduler/gpuscheduler/models"
)

var (
	serverOnce sync.Once
	serverConf pgtestdb.Config
	serverErr  error
	embedded   *pgembed.Server
	embedDir   string
)

// Main runs a package's tests, then stops the private server if this
// process started one. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if embedded != nil {
		_ = embedded.Stop(context.Background())
		_ = os.RemoveAll(embedDir)
	}
	os.Exit(code)
}

// server picks the PostgreSQL server the tests use.
func server() (pgtestdb.Config, error) {
	serverOnce.Do(func() {
		if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
			serverConf, serverErr = configFromURL(u)
			return
		}
		local := "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
		if reachable(local) {
			serverConf, serverErr = configFromURL(local)
			return
		}
		embedDir, serverErr = os.MkdirTemp("", "gpusched-testpg-")
		if serverErr != nil {
			return
		}
		_ = os.Chmod(embedDir, 0o755)
		embedded, serverErr = pgembed.Start(context.Background(), pgembed.Options{
			DataDir: embedDir + "/data", Database: "postgres", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if serverErr == nil {
			serverConf, serverErr = configFromURL(embedded.URL())
		}
	})
	return serverConf, serverErr
}

func reachable(u string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return false
	}
	_ = conn.Close(ctx)
	return true
}

func configFromURL(raw string) (pgtestdb.Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return pgtestdb.Config{}, fmt.Errorf("testdb: parse %q: %w", raw, err)
	}
	q := u.Query()
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = q.Get("host")
		q.Del("host")
	}
	if port == "" {
		port = q.Get("port")
		q.Del("port")
	}
	if port == "" {
		port = "5432"
	}
	if q.Get("sslmode") == "" {
		q.Set("sslmode", "disable")
	}
	pw, _ := u.User.Password()
	return pgtestdb.Config{
		DriverName: "pgx", Host: host, Port: port, User: u.User.Username(), Password: pw,
		Database: strings.TrimPrefix(u.Path, "/"), Options: q.Encode(), ForceTerminateConnections: true,
	}, nil
}

// migrator applies our schema and River's to pgtestdb's template database.
type migrator struct{}

// Hash identifies the template: it changes whenever a migration does.
func (migrator) Hash() (string, error) {
	all, err := migrations.All()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, m := range all {
		fmt.Fprintf(h, "%d %s\n%s\n%s\n", m.Version, m.Name, m.Up, m.Down)
	}
	fmt.Fprint(h, "river v0.51.1")
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// Migrate runs the real migrator, as `gpusched migrate` does.
func (migrator) Migrate(ctx context.Context, _ *sql.DB, conf pgtestdb.Config) error {
	pool, err := pgxpool.New(ctx, conf.URL())
	if err != nil {
		return err
	}
	defer pool.Close()
	return migrations.New(pool, slog.New(slog.NewTextHandler(io.Discard, nil))).Up(ctx)
}

// URL returns the connection string of a new, migrated database for t,
// dropped when t ends.
func URL(t testing.TB) string {
	t.Helper()
	conf, err := server()
	if err != nil {
		t.Fatalf("testdb: no PostgreSQL for tests: %v", err)
	}
	return pgtestdb.Custom(t, conf, migrator{}).URL()
}

// EmptyURL returns the connection string of a new database with no schema
// at all, for tests of the migrations themselves.
func EmptyURL(t testing.TB) string {
	t.Helper()
	conf, err := server()
	if err != nil {
		t.Fatalf("testdb: no PostgreSQL for tests: %v", err)
	}
	return pgtestdb.Custom(t, conf, pgtestdb.NoopMigrator{}).URL()
}

// New returns an open handle on a new, migrated database for t, with
// pools of 10 connections (many tests run side by side).
func New(t testing.TB) *models.DB { t.Helper(); return NewConns(t, 10) }

// NewConns is New with pools of maxConns connections (benchmarks: the
// server's models.DefaultMaxConns). Its River jobs are inserted by an
// insert-only client, as jobs.NewInserter's: they wait in the database for a
// worker the test starts, if any.
func NewConns(t testing.TB, maxConns int32) *models.DB {
	t.Helper()
	inserter, err := river.NewClient(riverpgxv5.New(nil), &river.Config{})
	if err != nil {
		t.Fatalf("testdb: river inserter: %v", err)
	}
	db, err := models.Open(context.Background(), URL(t), maxConns, inserter)
	if err != nil {
		t.Fatalf("testdb: open: %v", err)
	}
	t.Cleanup(db.Close)
	return db
}
