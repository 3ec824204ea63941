package main

import (
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"
)

// newLogger returns the process logger: JSON unless format is text, or auto
// on a terminal. Noise is demoted to debug (quietHandler); dev demotes
// every successful request too, so that its console shows events.
func newLogger(w io.Writer, level, format string, dev bool) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	text := format == "text"
	if format == "auto" {
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			text = true
		}
	}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if text {
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(quiet(h, dev))
}
