package bookingcsv

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"
)

// Write writes rows as a sheet (with the header), times in loc as
// "2006-01-02 15:04": what Read reads back with the same zone.
func Write(w io.Writer, rows []Row, loc *time.Location) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header); err != nil {
		return err
	}
	for _, r := range rows {
		ids := make([]string, len(r.GPUIDs))
		for i, id := range r.GPUIDs {
			ids[i] = strconv.FormatInt(id, 10)
		}
		gpus := ""
		if len(r.GPUIDs) == 0 {
			gpus = strconv.Itoa(r.GPUs)
		}
		rec := []string{r.Email, gpus, r.GPUModel, r.Node, strings.Join(ids, ";"),
			r.Start.In(loc).Format("2006-01-02 15:04"), r.End.In(loc).Format("2006-01-02 15:04"), r.Note}
		for i := range rec {
			rec[i] = toCell(rec[i])
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// formulaStart reports whether s, past any leading apostrophes, starts
// with a character that makes a spreadsheet read a cell as a formula.
func formulaStart(s string) bool {
	s = strings.TrimLeft(s, "'")
	return s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0]))
}

// SafeCell is s as a CSV cell that no spreadsheet runs as a formula: one
// that starts with = + - @, a tab or a CR gets a leading apostrophe
// (spreadsheets show it as text). Every CSV the product writes puts its
// text cells through it.
func SafeCell(s string) string { return toCell(s) }

// toCell neutralises a cell a spreadsheet would run as a formula.
func toCell(s string) string {
	if formulaStart(s) {
		return "'" + s
	}
	return s
}

// fromCell undoes toCell.
func fromCell(s string) string {
	if strings.HasPrefix(s, "'") && formulaStart(s) {
		return s[1:]
	}
	return s
}
