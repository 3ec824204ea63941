package bookingcsv_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuscheduler/gpuscheduler/internal/bookingcsv"
)

// Each row is read, or says in words why it cannot be.
func TestRead(t *testing.T) {
	t.Parallel()
	berlin, _ := time.LoadLocation("Europe/Berlin")
	sheet := "\ufeffEmail, GPUs,gpu_model,node,gpu_ids,start,end,note\n" +
		"Ana@Example.com,2,H100,,,2026-11-30 09:00,2026-11-30 18:00,fine-tune\n" +
		"bo@example.com,,,gpu-a,0;1,2026-11-30T10:00,2026-11-30T12:00:00+01:00,\n" +
		",,,,,,,\n" +
		"cy@example.com,1,,,,tomorrow,2026-11-30 10:00,\n" +
		"cy@example.com,1,,,,2026-11-30 12:00,2026-11-30 11:00,\n" +
		"cy@example.com,,,,,2026-11-30 12:00,2026-11-30 13:00,\n" +
		"cy@example.com,3,,gpu-a,0;1,2026-11-30 12:00,2026-11-30 13:00,\n" +
		"dee@example.com,1,,,,2026-11-30 12:00,2026-11-30 13:00,\"two\r\nlines\"\n" +
		"dee@example.com,1,,,,2026-11-30 12:00,2026-11-30 13:00,bell\a\n"
	rows, err := bookingcsv.Read(strings.NewReader(sheet), berlin)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Line       int
		GPUs       int
		IDs        []int64
		Start, Err string
	}
	var out []got
	for _, r := range rows {
		g := got{Line: r.Line, GPUs: r.GPUs, IDs: r.GPUIDs, Err: r.Err}
		if !r.Start.IsZero() && r.Err == "" {
			g.Start = r.Start.UTC().Format(time.RFC3339)
		}
		if len(r.Err) > 20 {
			g.Err = r.Err[:20]
		}
		out = append(out, g)
	}
	want := []got{
		{Line: 2, GPUs: 2, Start: "2026-11-30T08:00:00Z"},
		{Line: 3, GPUs: 2, IDs: []int64{0, 1}, Start: "2026-11-30T09:00:00Z"},
		{Line: 5, GPUs: 1, Err: `start: bad date "tom`},
		{Line: 6, GPUs: 1, Err: "end before start (20"},
		{Line: 7, Err: "give gpus (a count) "},
		{Line: 8, GPUs: 3, IDs: []int64{0, 1}, Err: "gpus is 3 but gpu_id"},
		{Line: 9, Err: "note holds a line br"},
		{Line: 10, Err: "note holds a line br"},
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if _, err := bookingcsv.Read(strings.NewReader("who,when\n"), berlin); err == nil || !strings.Contains(err.Error(), "unknown column") {
		t.Errorf("a sheet with other columns: %v", err)
	}
}

// What Write writes, Read reads back the same, in the same zone.
func TestWriteReadsBack(t *testing.T) {
	t.Parallel()
	ny, _ := time.LoadLocation("America/New_York")
	start := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	in := []bookingcsv.Row{
		{Email: "ana@example.com", GPUs: 2, GPUModel: "H100", Start: start, End: start.Add(9 * time.Hour), Note: "a, \"quoted\" note"},
		{Email: "bo@example.com", GPUs: 2, Node: "gpu-a", GPUIDs: []int64{3, 4}, Start: start, End: start.Add(time.Hour)},
	}
	var buf bytes.Buffer
	if err := bookingcsv.Write(&buf, in, ny); err != nil {
		t.Fatal(err)
	}
	back, err := bookingcsv.Read(&buf, ny)
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		back[i].Line = 0
		back[i].Start, back[i].End = back[i].Start.UTC(), back[i].End.UTC()
	}
	if diff := cmp.Diff(in, back); diff != "" {
		t.Errorf("read back (-wrote +read):\n%s", diff)
	}
}

// Cells a spreadsheet would run as formulas are written as text (a leading
// apostrophe) and read back as they were: a round trip is lossless.
func TestFormulaCells(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	notes := []string{`=HYPERLINK("https://evil.example","click")`, "+1 spare", "-2 GPUs", "@SUM(A1:A9)", "'=already quoted",
		"''=twice", "'plain", "plain", "a=b", ""}
	var in []bookingcsv.Row
	for _, n := range notes {
		in = append(in, bookingcsv.Row{Email: "ana@example.com", GPUs: 1, Start: start, End: start.Add(time.Hour), Note: n})
	}
	in = append(in, bookingcsv.Row{Email: "=cmd|'/c calc'!A1", GPUs: 1, GPUModel: "@H100", Node: "-gpu", Start: start, End: start.Add(time.Hour)})
	var buf bytes.Buffer
	if err := bookingcsv.Write(&buf, in, time.UTC); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs[1:] {
		for _, cell := range rec {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("cell %q would run as a formula", cell)
			}
		}
	}
	back, err := bookingcsv.Read(bytes.NewReader(buf.Bytes()), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for i := range back {
		got = append(got, back[i].Email+"|"+back[i].GPUModel+"|"+back[i].Node+"|"+back[i].Note)
		want = append(want, strings.ToLower(in[i].Email)+"|"+in[i].GPUModel+"|"+in[i].Node+"|"+in[i].Note)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back (-wrote +read):\n%s", diff)
	}
}

// A sheet saved by a spreadsheet in a locale that separates with ";" and
// writes dates day first reads the same.
func TestReadSemicolons(t *testing.T) {
	t.Parallel()
	sheet := "email;gpus;gpu_model;node;gpu_ids;start;end;note\r\nana@example.com;2;H100;;;30.11.2026 09:00;30.11.2026 18:00;\"a; b\"\r\nbo@example.com;;;gpu-a;0 1;30/11/2026 9:00;30/11/2026 12:00;\r\n"
	rows, err := bookingcsv.Read(strings.NewReader(sheet), time.UTC)
	if err != nil || len(rows) != 2 {
		t.Fatalf("%+v %v", rows, err)
	}
	if r := rows[0]; r.Err != "" || r.GPUs != 2 || r.Note != "a; b" || r.Start.Hour() != 9 || r.End.Hour() != 18 {
		t.Errorf("row 2: %+v", r)
	}
	if r := rows[1]; r.Err != "" || len(r.GPUIDs) != 2 || r.Start.Hour() != 9 {
		t.Errorf("row 3: %+v", r)
	}
}
