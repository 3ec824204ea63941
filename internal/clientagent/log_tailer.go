package clientagent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"time"
)

// maxLine caps one log line; longer lines are cut.
const maxLine = 64 << 10

// LogTailer follows a log file like `tail -F`: it starts at the end, emits
// every complete new line, reopens the file when it is replaced (rotation)
// and starts over when it shrinks (truncation). A file that does not exist
// yet is waited for.
type LogTailer struct {
	name   string
	path   string
	poll   time.Duration
	logger *slog.Logger
	// step, when set, replaces the poll ticker between looks at the file
	// (tests step the tailer with it); it returns false to end Run.
	step func(context.Context) bool
}

// Name is the monitor's name.
func (t *LogTailer) Name() string { return t.name }

// Run follows the file until ctx ends.
func (t *LogTailer) Run(ctx context.Context, emit func(Event)) error {
	var f *os.File
	var info os.FileInfo
	var off int64
	var partial []byte
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	first := true
	wait, stop := pollWait(t.step, t.poll)
	defer stop()
	for {
		if f == nil {
			if nf, err := os.Open(t.path); err == nil {
				f, info, partial = nf, statOr(nf), nil
				off = 0
				if first && info != nil {
					off = info.Size() // only what is written from now on
				}
			} else if !errors.Is(err, fs.ErrNotExist) {
				t.logger.Warn("cannot open the log", "path", t.path, "err", err)
			}
		}
		first = false
		if f != nil {
			off, partial = t.drain(f, off, partial, emit)
			cur, err := os.Stat(t.path)
			switch {
			case err != nil || !os.SameFile(info, cur):
				// Rotated away: read what the old file still got, then reopen.
				off, partial = t.drain(f, off, partial, emit)
				f.Close()
				f = nil
				continue
			case cur.Size() < off:
				t.logger.Info("log truncated; reading from its start", "path", t.path)
				off, partial = 0, nil
				continue
			}
		}
		if !wait(ctx) {
			return nil
		}
	}
}

func statOr(f *os.File) os.FileInfo {
	info, err := f.Stat()
	if err != nil {
		return nil
	}
	return info
}

// drain reads from off to the end and emits complete lines.
func (t *LogTailer) drain(f *os.File, off int64, partial []byte, emit func(Event)) (int64, []byte) {
	buf := make([]byte, 32<<10)
	for {
		n, err := f.ReadAt(buf, off)
		off += int64(n)
		partial = append(partial, buf[:n]...)
		for {
			i := bytes.IndexByte(partial, '\n')
			if i < 0 {
				break
			}
			line := bytes.TrimRight(partial[:i], "\r")
			if len(line) > maxLine {
				line = line[:maxLine]
			}
			emit(Event{Monitor: t.name, Line: string(line), Source: t.path})
			partial = partial[i+1:]
		}
		if len(partial) > maxLine {
			partial = partial[:0] // an endless line: drop it
		}
		if err != nil || n == 0 {
			if err != nil && !errors.Is(err, io.EOF) {
				t.logger.Warn("reading the log", "path", t.path, "err", err)
			}
			return off, partial
		}
	}
}
