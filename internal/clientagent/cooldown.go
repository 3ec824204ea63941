package clientagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Cooldowns remembers until when each monitor stays quiet after it
// triggered, in a small JSON file so that a restart does not reset them.
// With no file (dry runs) they live in memory only.
type Cooldowns struct {
	mu    sync.Mutex
	file  string
	until map[string]time.Time
}

// LoadCooldowns reads file (missing: none yet). file "" keeps them in memory.
func LoadCooldowns(file string) (*Cooldowns, error) {
	c := &Cooldowns{file: file, until: map[string]time.Time{}}
	if file == "" {
		return c, nil
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("clientagent: read cooldowns: %w", err)
	}
	if err := json.Unmarshal(data, &c.until); err != nil {
		return nil, fmt.Errorf("clientagent: cooldowns file %s is damaged (delete it to reset): %w", file, err)
	}
	return c, nil
}

// Active reports whether monitor is cooling down at now, and until when.
func (c *Cooldowns) Active(monitor string, now time.Time) (bool, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	u, ok := c.until[monitor]
	return ok && now.Before(u), u
}

// Start begins monitor's cooldown until until and saves it.
func (c *Cooldowns) Start(monitor string, until time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.until[monitor] = until
	if c.file == "" {
		return nil
	}
	data, err := json.MarshalIndent(c.until, "", "  ")
	if err != nil {
		return fmt.Errorf("clientagent: encode cooldowns: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(c.file), 0o700); err != nil {
		return fmt.Errorf("clientagent: save cooldowns: %w", err)
	}
	tmp := c.file + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("clientagent: save cooldowns: %w", err)
	}
	if err := os.Rename(tmp, c.file); err != nil {
		return fmt.Errorf("clientagent: save cooldowns: %w", err)
	}
	return nil
}
