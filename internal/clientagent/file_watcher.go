package clientagent

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// FileWatcher watches a folder (and its subfolders) for files whose name
// matches a glob; once a file has stopped changing for the debounce time it
// reads it (up to a size cap; the code cells of a notebook) and emits it.
type FileWatcher struct {
	name      string
	dir       string
	pattern   string
	recursive bool
	debounce  time.Duration
	maxBytes  int
	logger    *slog.Logger
}

// Name is the monitor's name.
func (w *FileWatcher) Name() string { return w.name }

// Run watches until ctx ends. A folder that does not exist yet is waited for.
func (w *FileWatcher) Run(ctx context.Context, emit func(Event)) error {
	for {
		if _, err := os.Stat(w.dir); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("clientagent: %s: watcher: %w", w.name, err)
	}
	defer fw.Close()
	if err := w.add(fw, w.dir); err != nil {
		return err
	}
	var mu sync.Mutex
	timers := map[string]*time.Timer{}
	var wg sync.WaitGroup
	defer func() {
		mu.Lock()
		for _, t := range timers {
			if t.Stop() {
				wg.Done()
			}
		}
		mu.Unlock()
		wg.Wait()
	}()
	fire := func(path string) {
		defer wg.Done()
		mu.Lock()
		delete(timers, path)
		mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		content, err := readCapped(path, w.maxBytes)
		if err != nil {
			w.logger.Debug("file gone before it was read", "path", path, "err", err)
			return
		}
		emit(Event{Monitor: w.name, Content: content, Source: path})
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-fw.Errors:
			w.logger.Warn("watching files", "err", err)
		case ev := <-fw.Events:
			if ev.Has(fsnotify.Create) && w.recursive {
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
					_ = w.add(fw, ev.Name)
					continue
				}
			}
			if !ev.Has(fsnotify.Write) && !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Rename) {
				continue
			}
			if ok, _ := filepath.Match(w.patternOr(), filepath.Base(ev.Name)); !ok {
				continue
			}
			mu.Lock()
			if t, ok := timers[ev.Name]; ok && t.Stop() {
				wg.Done()
			}
			wg.Add(1)
			path := ev.Name
			timers[path] = time.AfterFunc(w.debounce, func() { fire(path) })
			mu.Unlock()
		}
	}
}

func (w *FileWatcher) patternOr() string {
	if w.pattern == "" {
		return "*"
	}
	return w.pattern
}

// add watches dir and, when recursive, every folder below it.
func (w *FileWatcher) add(fw *fsnotify.Watcher, dir string) error {
	if !w.recursive {
		return fw.Add(dir)
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir // .git, .ipynb_checkpoints…
		}
		if err := fw.Add(path); err != nil {
			return fmt.Errorf("clientagent: %s: watch %s: %w", w.name, path, err)
		}
		return nil
	})
}

// readCapped reads up to max bytes of path; a notebook gives its code cells.
func readCapped(path string, max int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if strings.EqualFold(filepath.Ext(path), ".ipynb") {
		// Notebooks carry outputs and images: read more, keep only code.
		data, err := io.ReadAll(io.LimitReader(f, 64<<20))
		if err != nil {
			return "", err
		}
		code, err := notebookCode(data)
		if err != nil {
			return "", err
		}
		return capString(code, max), nil
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max)))
	return string(data), err
}

func capString(s string, max int) string {
	if len(s) > max {
		return s[:max]
	}
	return s
}
