// Package bookingcsv reads and writes the bookings sheet: the CSV a
// spreadsheet exports naturally, one booking a row, with the header
//
//	email,gpus,gpu_model,node,gpu_ids,start,end,note
//
// start and end are local times of a given zone ("2026-11-23 09:00",
// "2026-11-23T09:00", "23/11/2026 09:00", "23.11.2026 09:00") or carry an
// offset (RFC 3339). Fields are separated by "," or, as spreadsheets in many
// locales write them, by ";" (the header row tells).
// A row asks for gpus GPUs (of gpu_model, on node when given) or names
// them in gpu_ids: indexes on node ("0;1" or "0 1"), or cluster GPU ids
// when node is empty. The package knows nothing of the database: it only
// parses and formats; the standard library is its only dependency.
//
// A cell that a spreadsheet would run as a formula (one that starts with
// = + - @, a tab or a CR) is written with a leading apostrophe, which
// spreadsheets show as text; Read takes that apostrophe off again, so a
// sheet written and read back holds the same text (a cell that already
// starts with apostrophes before such a character gets one more).
package bookingcsv

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Header is the sheet's header row.
var Header = []string{"email", "gpus", "gpu_model", "node", "gpu_ids", "start", "end", "note"}

// Row is one row of the sheet. Line is its row number in the file (the
// header is row 1). Err says why the row cannot be read (bad date, end
// before start); the other fields are then as far as they were read.
type Row struct {
	Line     int
	Email    string
	GPUs     int
	GPUModel string
	Node     string
	GPUIDs   []int64
	Start    time.Time
	End      time.Time
	Note     string
	Err      string
}

// timeLayouts are the accepted local forms of start and end.
var timeLayouts = []string{"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02T15:04:05",
	"02/01/2006 15:04", "2/1/2006 15:04", "02.01.2006 15:04", "2.1.2006 15:04", "2006/01/02 15:04", "2006-01-02"}

// ParseTime reads s as RFC 3339 (offset given) or a local time of loc.
func ParseTime(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad date %q: write it like 2026-11-23 09:00 (local time) or 2026-11-23T09:00:00+01:00", s)
}

// MaxRows bounds one import.
const MaxRows = 5000

// Read parses a sheet; times without an offset are in loc. Column order
// comes from the header (names in any case; unknown columns are refused).
// A row that cannot be read is returned with Err set; only a sheet that
// cannot be read at all is an error.
func Read(r io.Reader, loc *time.Location) ([]Row, error) {
	br := bufio.NewReader(r)
	cr := csv.NewReader(br)
	// Spreadsheets in many locales separate with ";": the header says which.
	if head, _ := br.Peek(br.Size()); len(head) > 0 {
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			head = head[:i]
		}
		if bytes.Count(head, []byte(";")) > bytes.Count(head, []byte(",")) {
			cr.Comma = ';'
		}
	}
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("the file is empty: the first row must be the header " + strings.Join(Header, ","))
	}
	if err != nil {
		return nil, fmt.Errorf("the header row: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if !contains(Header, h) {
			return nil, fmt.Errorf("unknown column %q: the columns are %s", h, strings.Join(Header, ","))
		}
		col[h] = i
	}
	for _, need := range []string{"email", "start", "end"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("the header lacks the column %q (columns: %s)", need, strings.Join(Header, ","))
		}
	}
	var rows []Row
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", line, err)
		}
		if blank(rec) {
			continue
		}
		if len(rows) == MaxRows {
			return nil, fmt.Errorf("more than %d rows: split the file", MaxRows)
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return fromCell(strings.TrimSpace(rec[i]))
			}
			return ""
		}
		rows = append(rows, parseRow(line, get, loc))
	}
	return rows, nil
}

func parseRow(line int, get func(string) string, loc *time.Location) Row {
	row := Row{Line: line, Email: strings.ToLower(get("email")), GPUModel: get("gpu_model"), Node: get("node"), Note: get("note")}
	fail := func(format string, args ...any) Row {
		row.Err = fmt.Sprintf(format, args...)
		return row
	}
	if row.Email == "" {
		return fail("no email")
	}
	for _, f := range []struct{ name, value string }{{"email", row.Email}, {"gpu_model", row.GPUModel}, {"node", row.Node}, {"note", row.Note}} {
		if hasControl(f.value) {
			return fail("%s holds a line break, tab or other control character: keep it to one line of text", f.name)
		}
	}
	if s := get("gpus"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fail("gpus %q is not a positive number", s)
		}
		row.GPUs = n
	}
	for _, f := range strings.FieldsFunc(get("gpu_ids"), func(r rune) bool { return r == ';' || r == ' ' || r == ',' || r == '|' }) {
		id, err := strconv.ParseInt(strings.TrimPrefix(f, "#"), 10, 64)
		if err != nil || id < 0 {
			return fail("gpu_ids %q is not a list of GPU numbers like 0;1", get("gpu_ids"))
		}
		row.GPUIDs = append(row.GPUIDs, id)
	}
	switch {
	case len(row.GPUIDs) > 0 && row.GPUs != 0 && row.GPUs != len(row.GPUIDs):
		return fail("gpus is %d but gpu_ids names %d GPUs", row.GPUs, len(row.GPUIDs))
	case len(row.GPUIDs) == 0 && row.GPUs == 0:
		return fail("give gpus (a count) or gpu_ids")
	case len(row.GPUIDs) > 0:
		row.GPUs = len(row.GPUIDs)
	}
	var err error
	if row.Start, err = ParseTime(get("start"), loc); err != nil {
		return fail("start: %v", err)
	}
	if row.End, err = ParseTime(get("end"), loc); err != nil {
		return fail("end: %v", err)
	}
	if !row.End.After(row.Start) {
		return fail("end before start (%s is not after %s)", get("end"), get("start"))
	}
	if len(row.Note) > 500 {
		return fail("note is longer than 500 characters")
	}
	return row
}

// hasControl reports whether s holds a control character (C0 with tab,
// CR and LF, DEL, C1), which no field of a booking may hold.
func hasControl(s string) bool {
	return strings.IndexFunc(s, func(c rune) bool { return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) }) >= 0
}

func blank(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
