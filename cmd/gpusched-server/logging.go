package main

import (
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"
)

// newLogger returns the process logger: JSON unless format is text, or auto
// on a terminal.
func newLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	text := format == "text"
	if format == "auto" {
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			text = true
		}
	}
	if text {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
