package models_test

import (
	"bytes"
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// startCommand makes a job and a start command for it on a new node.
func startCommand(t testing.TB, db *models.DB, u *models.User) *models.NodeCommand {
	t.Helper()
	n, _ := testdb.Node(t, db, 1)
	j := testdb.Job(t, db, u, 1)
	c, err := models.EnqueueCommand(context.Background(), db.Bun, n.ID, j.ID, models.CommandStart, map[string]any{}, testdb.Now)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readAll follows next_offset from 0 until no more data comes.
func readAll(t testing.TB, db *models.DB, jobID int64, limit int) (first int64, out []byte) {
	t.Helper()
	var off int64
	for i := 0; ; i++ {
		p, err := models.ReadLog(context.Background(), db.Bun, jobID, off, limit)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = p.Offset
		}
		if len(p.Data) == 0 {
			return first, out
		}
		out = append(out, p.Data...)
		off = p.Next
	}
}

// However the output is cut into chunks, and whatever is sent again (a
// retry, or a restarted agent resending from an older offset with other
// boundaries), reading it back gives exactly the output, once.
func TestLogChunksReassemble(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	u := testdb.User(t, db, models.RoleMember)
	rapid.Check(t, func(rt *rapid.T) {
		c := startCommand(t, db, u)
		output := rapid.SliceOfN(rapid.Byte(), 0, 4000).Draw(rt, "output")
		var sent int
		for sent < len(output) {
			from := sent
			if rapid.Bool().Draw(rt, "resend") {
				from = rapid.IntRange(0, sent).Draw(rt, "from")
			}
			n := rapid.IntRange(1, len(output)-from).Draw(rt, "n")
			if err := models.AppendLog(context.Background(), db.Bun, c.ID, c.JobID, int64(from), output[from:from+n], testdb.Now); err != nil {
				rt.Fatal(err)
			}
			sent = max(sent, from+n)
		}
		limit := rapid.IntRange(1, 5000).Draw(rt, "limit")
		first, got := readAll(t, db, c.JobID, limit)
		if first != 0 || !bytes.Equal(got, output) {
			rt.Fatalf("read back %d bytes from %d, want the %d written from 0", len(got), first, len(output))
		}
	})
}

// Only the newest LogCap bytes are kept; reading from 0 starts where the
// kept output starts.
func TestLogCap(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	c := startCommand(t, db, testdb.User(t, db, models.RoleMember))
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for i := range 11 {
		chunk[0] = byte('a' + i)
		if err := models.AppendLog(context.Background(), db.Bun, c.ID, c.JobID, int64(i)<<20, chunk, testdb.Now); err != nil {
			t.Fatal(err)
		}
	}
	first, got := readAll(t, db, c.JobID, 1<<20)
	if first != 1<<20 || len(got) != models.LogCap || got[0] != 'b' {
		t.Fatalf("kept %d bytes from offset %d starting %q; want the last %d from %d", len(got), first, got[:1], models.LogCap, 1<<20)
	}
}
