package cli

import (
	"fmt"
	"os"
	"strings"
)

// SecretOrValue returns VAR, or the trimmed content of the file named by
// VAR_FILE; setting both is an error.
func SecretOrValue(name string, getenv func(string) string) (string, error) {
	val, file := getenv(name), getenv(name+"_FILE")
	if file == "" {
		return val, nil
	}
	if val != "" {
		return "", fmt.Errorf("set %s or %s_FILE, not both", name, name)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s_FILE: %w", name, err)
	}
	return strings.TrimSpace(string(b)), nil
}
