package models_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// rayChunk is a stored piece of a Ray run's output: where it starts, how
// long it is, and the transaction that wrote it.
type rayChunk struct {
	Offset, Len int64
	Xmin        string
}

func rayChunks(t *testing.T, db *models.DB, run int64) []rayChunk {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(),
		`SELECT "offset", length(data), xmin::text FROM ray_run_logs WHERE run_id = $1 ORDER BY "offset"`, run)
	if err != nil {
		t.Fatal(err)
	}
	var out []rayChunk
	for rows.Next() {
		var c rayChunk
		if err := rows.Scan(&c.Offset, &c.Len, &c.Xmin); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// Each sync stores only what the run printed since the last one: earlier
// chunks are never rewritten, a sync with nothing new writes nothing, and
// reading pages through the chunks gives the whole output back.
func TestStoreRayLogsAppends(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	job := testdb.Job(t, db, testdb.User(t, db, models.RoleMember), 1)
	run, err := models.OpenRayRun(ctx, db.Bun, job.ID, func(a int) string { return fmt.Sprintf("append-%d", a) }, testdb.Now)
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	var first string
	for i := range 5 {
		out += fmt.Sprintf("step %d\n", i)
		for range 2 { // the second sync of the same output adds nothing
			if err := models.StoreRayLogs(ctx, db.Bun, run.ID, []byte(out)); err != nil {
				t.Fatal(err)
			}
		}
		chunks := rayChunks(t, db, run.ID)
		if len(chunks) != i+1 {
			t.Fatalf("after sync %d: %d chunks, want %d: %+v", i, len(chunks), i+1, chunks)
		}
		if i == 0 {
			first = chunks[0].Xmin
		} else if chunks[0].Xmin != first {
			t.Fatalf("after sync %d the first chunk was rewritten (xmin %s, was %s)", i, chunks[0].Xmin, first)
		}
		last := chunks[len(chunks)-1]
		if last.Offset+last.Len != int64(len(out)) || last.Len != int64(len(fmt.Sprintf("step %d\n", i))) {
			t.Fatalf("after sync %d the last chunk is %+v; want the new line ending at %d", i, last, len(out))
		}
	}
	var got strings.Builder
	for offset := int64(0); ; {
		page, err := models.ReadRayLog(ctx, db.Bun, job.ID, offset, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) == 0 {
			break
		}
		got.Write(page.Data)
		offset = page.Next
	}
	if d := cmp.Diff(out, got.String()); d != "" {
		t.Errorf("output read back (-want +got):\n%s", d)
	}
}

// Only the last LogCap bytes are kept: a first sync of more keeps its
// tail, later chunks push the oldest out, and a read from 0 starts where
// the kept output does.
func TestStoreRayLogsCap(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	job := testdb.Job(t, db, testdb.User(t, db, models.RoleMember), 1)
	run, err := models.OpenRayRun(ctx, db.Bun, job.ID, func(a int) string { return fmt.Sprintf("cap-%d", a) }, testdb.Now)
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.Repeat([]byte("0123456789abcdef"), models.LogCap/16+1) // LogCap+16 bytes
	if err := models.StoreRayLogs(ctx, db.Bun, run.ID, out); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int64{16, models.LogCap}, offsetLen(rayChunks(t, db, run.ID))); d != "" {
		t.Errorf("first sync's chunk [offset, length] (-want +got):\n%s", d)
	}
	out = append(out, bytes.Repeat([]byte("x"), 32)...)
	if err := models.StoreRayLogs(ctx, db.Bun, run.ID, out); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int64{16, models.LogCap, models.LogCap + 16, 32}, offsetLen(rayChunks(t, db, run.ID))); d != "" {
		t.Errorf("chunks after 32 more bytes (-want +got):\n%s", d)
	}
	page, err := models.ReadRayLog(ctx, db.Bun, job.ID, 0, 8)
	if err != nil || page.Offset != 16 || string(page.Data) != "01234567" {
		t.Errorf("read from 0: %+v, %v; want 8 bytes from 16", page, err)
	}
	out = append(out, bytes.Repeat([]byte("y"), models.LogCap)...)
	if err := models.StoreRayLogs(ctx, db.Bun, run.ID, out); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int64{models.LogCap + 48, models.LogCap}, offsetLen(rayChunks(t, db, run.ID))); d != "" {
		t.Errorf("chunks after LogCap more bytes (-want +got):\n%s", d)
	}
}

func offsetLen(chunks []rayChunk) []int64 {
	var out []int64
	for _, c := range chunks {
		out = append(out, c.Offset, c.Len)
	}
	return out
}
