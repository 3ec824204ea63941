package models

import (
	"regexp"
	"testing"
	"time"

	"pgregory.net/rapid"
)

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// Submit tokens are version 7 UUIDs in canonical text, and a token drawn at
// a later millisecond sorts after one drawn earlier, whatever their random
// bits: the unique index on them grows at its right edge.
func TestSubmitTokenProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		ms := rapid.Int64Range(0, 1<<47).Draw(t, "ms")
		later := ms + rapid.Int64Range(1, 1<<40).Draw(t, "gap")
		a, b := newSubmitToken(time.UnixMilli(ms)), newSubmitToken(time.UnixMilli(later))
		for _, tok := range []string{a, b} {
			if !uuidV7.MatchString(tok) {
				t.Fatalf("%q is not a version 7 UUID", tok)
			}
		}
		if a >= b {
			t.Fatalf("token at %d ms (%s) sorts after the one at %d ms (%s)", ms, a, later, b)
		}
	})
}

// Tokens drawn in the same millisecond differ.
func TestSubmitTokensDiffer(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	for range 100000 {
		tok := newSubmitToken(now)
		if seen[tok] {
			t.Fatalf("token %s drawn twice", tok)
		}
		seen[tok] = true
	}
}
