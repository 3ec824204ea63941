package opstest

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
)

// previousRelease is the schema version of the release before this one.
const previousRelease = 8

// schemaOf lists the public schema's columns, indexes and constraints: two
// databases with equal lists have the same schema.
func schemaOf(t testing.TB, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || COALESCE(column_default, '')
			FROM information_schema.columns WHERE table_schema = 'public'
		UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
		UNION ALL SELECT 'constraint ' || conrelid::regclass || ' ' || pg_get_constraintdef(oid)
			FROM pg_constraint WHERE connamespace = 'public'::regnamespace
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

var versionLine = regexp.MustCompile(`schema at version (\d+) \(latest (\d+)\)`)

// migrateStatus runs `gpusched migrate` (which applies what is missing)
// and returns the version it reports and the latest.
func migrateStatus(t testing.TB, dbURL string) (int, int) {
	t.Helper()
	out := cli(t, dbURL, "migrate")
	m := versionLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("gpusched migrate said %q", out)
	}
	v, _ := strconv.Atoi(m[1])
	latest, _ := strconv.Atoi(m[2])
	return v, latest
}

// The previous release's database (schema version 8, holding a user, a
// token, a node and finished jobs) is migrated by the new binary while no
// server runs, and the data is all there; then every step rolls back and
// applies again to the very same schema.
func TestUpgradeFromPreviousRelease(t *testing.T) {
	t.Parallel()
	pg := startPG(t)
	pool := pg.Pool()
	_, latest := migrateStatus(t, pg.URL)
	fresh := schemaOf(t, pool)

	// A database as the previous release left it: data written through the
	// application, then the schema taken back to that release's version.
	s := startServer(t, "old", pg.URL)
	token := adminToken(t, pg.URL)
	state := openDir(t, "opstest-upgrade-state-")
	killJobProcesses(t, state)
	node := startNode(t, "gpu-u", s.URL, cli(t, pg.URL, "token", "create", "--node", "gpu-u"), state)
	if waitNodeUp(t, pool, "gpu-u", 20*time.Second) < 0 {
		t.Fatal("node not up")
	}
	j, err := submit(context.Background(), s.URL, token, "exit 7", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, d := waitState(t, s.URL, token, j.ID, 15*time.Second, terminal...); d < 0 || got.ExitCode == nil || *got.ExitCode != 7 {
		t.Fatalf("job before the upgrade: %+v", got)
	}
	node.Kill()
	s.Kill()
	cli(t, pg.URL, "migrate", "down", "--steps", strconv.Itoa(latest-previousRelease))
	var v int
	if err := pool.QueryRow(context.Background(), `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil || v != previousRelease {
		t.Fatalf("schema at %d (%v), want the previous release's %d", v, err, previousRelease)
	}

	began := time.Now()
	if got, _ := migrateStatus(t, pg.URL); got != latest {
		t.Fatalf("after the upgrade the schema is at %d, want %d", got, latest)
	}
	t.Logf("schema %d → %d migrated in %s", previousRelease, latest, time.Since(began).Round(time.Millisecond))
	if diff := cmp.Diff(fresh, schemaOf(t, pool)); diff != "" {
		t.Errorf("upgraded schema differs from a fresh one (-fresh +upgraded):\n%s", diff)
	}
	s = startServer(t, "new", pg.URL)
	got, err := job(context.Background(), s.URL, token, j.ID)
	if err != nil || got.State != "failed" || got.ExitCode == nil || *got.ExitCode != 7 {
		t.Errorf("the job from before the upgrade, through the new server with the old token: %+v %v", got, err)
	}
	s.Kill()

	// Every step down, then up again: the same schema.
	cli(t, pg.URL, "migrate", "down", "--steps", strconv.Itoa(latest))
	var left int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM schema_migrations`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("after migrate down of every step %d remain (%v)", left, err)
	}
	var tables []string
	rows, _ := pool.Query(context.Background(), `SELECT tablename FROM pg_tables WHERE schemaname = 'public'
		AND tablename <> 'schema_migrations' AND tablename NOT LIKE 'river%' ORDER BY 1`)
	for rows.Next() {
		var n string
		_ = rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	if len(tables) > 0 {
		t.Errorf("tables left after rolling back every step: %s", strings.Join(tables, ", "))
	}
	if got, _ := migrateStatus(t, pg.URL); got != latest {
		t.Fatalf("up again: schema at %d, want %d", got, latest)
	}
	if diff := cmp.Diff(fresh, schemaOf(t, pool)); diff != "" {
		t.Errorf("schema after down and up differs (-fresh +again):\n%s", diff)
	}
	t.Logf("migrate down of all %d steps and up again: the same schema as a fresh one", latest)
}
