package clientagent

import (
	"errors"
	"fmt"

	"github.com/zalando/go-keyring"
)

// KeyringService is the service name the agent's secrets are stored under
// in the OS keyring (macOS Keychain, Windows Credential Manager, Secret
// Service on Linux).
const KeyringService = "gpusched-agent"

// KeyringGet reads secret name (as in keyring(name) in the config).
func KeyringGet(name string) (string, error) {
	v, err := keyring.Get(KeyringService, name)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", fmt.Errorf("no secret %q in the OS keyring", name)
	}
	if err != nil {
		return "", fmt.Errorf("OS keyring: %w", err)
	}
	return v, nil
}

// KeyringSet stores secret name.
func KeyringSet(name, value string) error {
	if value == "" {
		return fmt.Errorf("clientagent: refusing to store an empty %s", name)
	}
	if err := keyring.Set(KeyringService, name, value); err != nil {
		return fmt.Errorf("clientagent: store %s in the OS keyring: %w", name, err)
	}
	return nil
}
