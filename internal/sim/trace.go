package sim

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strings"
)

// Trace formats ReadTrace understands.
const (
	FormatAlibaba  = "alibaba-openb" // Alibaba cluster-trace-gpu-v2023 "openb" pods
	FormatTiresias = "tiresias"      // the Tiresias (NSDI'19) simulator's job trace
	FormatCSV      = "csv"           // our plain CSV: id,user,submit_s,duration_s,gpus[,…] (see ReadCSV)
)

// Formats lists the trace formats, for help texts.
var Formats = []string{FormatAlibaba, FormatTiresias, FormatCSV, FormatPhilly, FormatPhillyCSV}

// ReadOptions are the reader settings that traces without a user column need.
type ReadOptions struct {
	// Users is how many users the jobs are spread over when the trace has
	// no user column (Alibaba, Tiresias, Philly's per-job CSV); at least 1.
	Users int
	// Seed salts the hash that assigns jobs to users.
	Seed uint64
}

// ReadTrace reads the trace file at path in format; an empty format is
// detected from the header row.
func ReadTrace(path, format string, opt ReadOptions) (*Trace, error) {
	if opt.Users < 1 {
		return nil, fmt.Errorf("users must be at least 1, not %d", opt.Users)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if format == "" {
		if format, err = detectFormat(br, path); err != nil {
			return nil, err
		}
	}
	switch format {
	case FormatAlibaba:
		return ReadAlibabaOpenB(br, path, opt)
	case FormatTiresias:
		return ReadTiresias(br, path, opt)
	case FormatCSV:
		return ReadCSV(br, path)
	case FormatPhilly:
		return ReadPhilly(br, path)
	case FormatPhillyCSV:
		return ReadPhillyCSV(br, path, opt)
	}
	return nil, fmt.Errorf("trace format %q is not one of %s", format, strings.Join(Formats, ", "))
}

// detectFormat tells the format from the header row, without consuming it.
func detectFormat(br *bufio.Reader, path string) (string, error) {
	head, err := br.Peek(br.Size())
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	line, _, _ := strings.Cut(string(head), "\n")
	switch {
	case strings.HasPrefix(strings.TrimSpace(string(head)), "["):
		return FormatPhilly, nil
	case strings.Contains(line, "gpu_time") && strings.Contains(line, "num_gpus"):
		return FormatPhillyCSV, nil
	case strings.Contains(line, "gpu_milli"):
		return FormatAlibaba, nil
	case strings.Contains(line, "iterations"):
		return FormatTiresias, nil
	case strings.Contains(line, "submit_s"):
		return FormatCSV, nil
	}
	return "", fmt.Errorf("%s:1: cannot tell the trace format from the header; pass --format (%s)", path, strings.Join(Formats, ", "))
}

// userOf assigns a job to one of n users deterministically: FNV-1a (64 bit)
// over the seed's 8 bytes (big-endian) then the job's name, modulo n, plus 1.
func userOf(name string, seed uint64, n int) int64 {
	h := fnv.New64a()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(name))
	return int64(h.Sum64()%uint64(n)) + 1
}

// hashedUsers names n synthetic users user01…, index 0 unused.
func hashedUsers(n int) []string {
	names := make([]string, n+1)
	for i := 1; i <= n; i++ {
		names[i] = fmt.Sprintf("user%02d", i)
	}
	return names
}

// hashedUsersNote is the header note of a trace whose users were hashed.
func hashedUsersNote(what string, opt ReadOptions) string {
	return fmt.Sprintf("no user column: each job's user is FNV-1a(seed %d, %s) mod %d", opt.Seed, what, opt.Users)
}
