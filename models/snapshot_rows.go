package models

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
)

// rows is what a snapshot query reads: pgx's rows inside a pass's
// transaction (no reflection, binary protocol), database/sql's elsewhere.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

type sqlRows struct{ *sql.Rows }

// query runs a read of the snapshot on db's own connection: through pgx
// when db is a transaction of InTx, else through bun. q marks its
// arguments with ? (bun's way; none may appear otherwise). close must be
// called once the rows are read.
func query(ctx context.Context, db bun.IDB, q string, args ...any) (r rows, close func(), err error) {
	if tx, ok := db.(*Tx); ok && tx.pgx != nil {
		pr, err := tx.pgx.Query(ctx, dollarArgs(q), args...)
		if err != nil {
			return nil, nil, err
		}
		return pr, pr.Close, nil
	}
	sr, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, err
	}
	return sqlRows{sr}, func() { _ = sr.Close() }, nil
}

// dollarArgs numbers q's ? placeholders as PostgreSQL's $1, $2…
func dollarArgs(q string) string {
	var b strings.Builder
	n := 0
	for {
		i := strings.IndexByte(q, '?')
		if i < 0 {
			b.WriteString(q)
			return b.String()
		}
		n++
		b.WriteString(q[:i])
		b.WriteString("$" + strconv.Itoa(n))
		q = q[i+1:]
	}
}
