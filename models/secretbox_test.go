package models

import (
	"errors"
	"strings"
	"testing"
)

// Sealed values open under the sealing key and, after rotation, under an
// older one kept second; never under a key the server lacks. Values stored
// unsealed open as they are.
func TestSecretBox(t *testing.T) {
	t.Parallel()
	old, err := NewSecretBox([][]byte{[]byte("old-key-0123456789abcdef0123456789")})
	if err != nil {
		t.Fatal(err)
	}
	rotated, _ := NewSecretBox([][]byte{[]byte("new-key-0123456789abcdef0123456789"), []byte("old-key-0123456789abcdef0123456789")})
	other, _ := NewSecretBox([][]byte{[]byte("other-key-0123456789abcdef01234567")})
	sealed := old.Seal("https://hooks.slack.com/services/T/B/secret")
	if strings.Contains(sealed, "secret") || !strings.HasPrefix(sealed, sealedPrefix) {
		t.Fatalf("sealed %q", sealed)
	}
	for _, b := range []*SecretBox{old, rotated} {
		if got, err := b.Open(sealed); err != nil || got != "https://hooks.slack.com/services/T/B/secret" {
			t.Fatalf("open: %q %v", got, err)
		}
	}
	if _, err := other.Open(sealed); !errors.Is(err, ErrUnsealable) {
		t.Fatalf("opened under a foreign key: %v", err)
	}
	if got, err := other.Open("plain"); err != nil || got != "plain" {
		t.Fatalf("unsealed value: %q %v", got, err)
	}
	var none *SecretBox
	if none.Seal("x") != "x" {
		t.Fatal("a nil box must store values as given")
	}
}
