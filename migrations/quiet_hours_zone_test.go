package migrations_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/migrations"
)

// Rolling back the quiet hours' zone turns Berlin's 22:00–07:00 into
// minutes of the UTC day at today's offset, and leaves UTC hours alone.
func TestQuietHoursZoneDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, q := range []string{
		`INSERT INTO users (id, email) VALUES (1, 'ana@example.com'), (2, 'bo@example.com')`,
		`INSERT INTO notification_preferences (user_id, events, quiet_start, quiet_end, quiet_zone, updated_at)
		 VALUES (1, '{}', 1320, 420, 'Europe/Berlin', now()), (2, '{}', 1320, 420, 'UTC', now())`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	const zoneVersion = 21
	if err := migrations.New(pool, quiet()).Down(ctx, migrations.Latest()-zoneVersion+1, false); err != nil {
		t.Fatalf("down: %v", err)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	_, off := time.Now().In(berlin).Zone()
	for user, want := range map[int][2]int{1: {1320 - off/60, 420 - off/60}, 2: {1320, 420}} {
		var start, end int
		if err := pool.QueryRow(ctx, `SELECT quiet_start, quiet_end FROM notification_preferences WHERE user_id = $1`, user).Scan(&start, &end); err != nil {
			t.Fatal(err)
		}
		if start != want[0] || end != want[1] {
			t.Errorf("user %d: quiet %d–%d, want %d–%d minutes of the UTC day", user, start, end, want[0], want[1])
		}
	}
}
