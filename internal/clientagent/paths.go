package clientagent

import (
	"fmt"
	"os"
	"path/filepath"
)

// appDir is the agent's folder inside the user's config folder.
const appDir = "gpusched-agent"

// DefaultConfigPath is config.yaml in the user's config folder
// (~/.config/gpusched-agent on Linux, ~/Library/Application Support/… on
// macOS, %AppData%\… on Windows).
func DefaultConfigPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("clientagent: no config folder: %w", err)
	}
	return filepath.Join(dir, appDir, "config.yaml"), nil
}

// DefaultStateFile is where cooldowns are kept when the config names none.
func DefaultStateFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("clientagent: no config folder: %w", err)
	}
	return filepath.Join(dir, appDir, "cooldowns.json"), nil
}
