package sim

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ParseError is a problem at one place of a trace file: the file, the
// 1-based line, and the 1-based column (field number) with its header name.
type ParseError struct {
	File   string // the trace file
	Line   int    // 1-based line
	Column int    // 1-based field number; 0 when the whole line is at fault
	Name   string // the column's header name, when known
	Err    error  // what is wrong
}

// Error reads "pods.csv:12: column 4 (num_gpu): … ".
func (e *ParseError) Error() string {
	switch {
	case e.Column > 0 && e.Name != "":
		return fmt.Sprintf("%s:%d: column %d (%s): %v", e.File, e.Line, e.Column, e.Name, e.Err)
	case e.Column > 0:
		return fmt.Sprintf("%s:%d: column %d: %v", e.File, e.Line, e.Column, e.Err)
	default:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// table reads a CSV file with a header row, field by field, so that every
// error names the file, line and column.
type table struct {
	file  string
	r     *csv.Reader
	cols  map[string]int // header name → field index
	names []string
	rec   []string
	line  int
}

// openTable reads the header and checks that it has every required column.
func openTable(r io.Reader, file string, required ...string) (*table, error) {
	t := &table{file: file, r: csv.NewReader(r), cols: map[string]int{}}
	t.r.FieldsPerRecord = -1
	t.r.TrimLeadingSpace = true
	header, err := t.r.Read()
	if errors.Is(err, io.EOF) {
		return nil, &ParseError{File: file, Line: 1, Err: fmt.Errorf("empty file: want a header with %s", strings.Join(required, ","))}
	}
	if err != nil {
		return nil, t.wrap(err)
	}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		t.names = append(t.names, h)
		t.cols[h] = i
	}
	for _, name := range required {
		if _, ok := t.cols[name]; !ok {
			return nil, &ParseError{File: file, Line: 1, Err: fmt.Errorf("header lacks column %q (want %s)", name, strings.Join(required, ","))}
		}
	}
	return t, nil
}

// next reads the next row; it returns false at the end of the file.
func (t *table) next() (bool, error) {
	rec, err := t.r.Read()
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		return false, t.wrap(err)
	}
	t.rec = rec
	t.line, _ = t.r.FieldPos(0)
	if len(rec) != len(t.names) {
		return false, &ParseError{File: t.file, Line: t.line, Err: fmt.Errorf("%d fields, the header has %d", len(rec), len(t.names))}
	}
	return true, nil
}

// wrap names the file in an error of the CSV reader.
func (t *table) wrap(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: t.file, Line: pe.Line, Err: fmt.Errorf("character %d: %w", pe.Column, pe.Err)}
	}
	return fmt.Errorf("%s: %w", t.file, err)
}

// has reports whether the header has the column name.
func (t *table) has(name string) bool { _, ok := t.cols[name]; return ok }

// str is the trimmed text of column name in the current row ("" when the
// header lacks it).
func (t *table) str(name string) string {
	i, ok := t.cols[name]
	if !ok {
		return ""
	}
	return strings.TrimSpace(t.rec[i])
}

// errAt is an error about column name of the current row.
func (t *table) errAt(name string, err error) error {
	return &ParseError{File: t.file, Line: t.line, Column: t.cols[name] + 1, Name: name, Err: err}
}

// float parses column name as a finite number; ok is false when empty.
func (t *table) float(name string) (v float64, ok bool, err error) {
	s := t.str(name)
	if s == "" {
		return 0, false, nil
	}
	v, err = strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, t.errAt(name, fmt.Errorf("%q is not a number", s))
	}
	return v, true, nil
}

// int parses column name as an integer; ok is false when empty.
func (t *table) int(name string) (v int, ok bool, err error) {
	s := t.str(name)
	if s == "" {
		return 0, false, nil
	}
	v, err = strconv.Atoi(s)
	if err != nil {
		return 0, false, t.errAt(name, fmt.Errorf("%q is not a whole number", s))
	}
	return v, true, nil
}

// gpus parses column name as a positive whole number of GPUs.
func (t *table) gpus(name string) (int, error) {
	v, ok, err := t.int(name)
	if err == nil && (!ok || v < 1) {
		err = t.errAt(name, fmt.Errorf("%q is not a positive number of GPUs", t.str(name)))
	}
	return v, err
}
