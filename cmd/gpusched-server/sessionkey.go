package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// sessionKeys returns the configured session keys. In dev without one, a key
// is generated once and kept in DataDir/session.key so sessions survive
// restarts; outside dev a key is required.
func sessionKeys(cfg Config) ([][]byte, error) {
	var keys [][]byte
	for _, k := range cfg.SessionKeys {
		keys = append(keys, []byte(k))
	}
	if len(keys) > 0 {
		return keys, nil
	}
	if !cfg.Dev {
		return nil, errors.New("set GPUSCHED_SESSION_KEY (or GPUSCHED_SESSION_KEY_FILE) to a secret of at least 32 bytes, e.g. `openssl rand -hex 32`")
	}
	path := filepath.Join(cfg.DataDir, "session.key")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return [][]byte{[]byte(strings.TrimSpace(string(b)))}, nil
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("generate dev session key: %w", err)
	}
	key := hex.EncodeToString(raw[:])
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", cfg.DataDir, err)
	}
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("write dev session key: %w", err)
	}
	return [][]byte{[]byte(key)}, nil
}
