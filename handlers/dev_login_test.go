package handlers

import "testing"

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"127.0.0.1:8080":       true,
		"127.9.9.9:1":          true,
		"[::1]:8080":           true,
		"localhost:8080":       true,
		"[::ffff:127.0.0.1]:1": true,
		"0.0.0.0:8080":         false,
		":8080":                false,
		"192.168.1.4:8080":     false,
		"example.com:8080":     false,
		"":                     false,
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			if got := isLoopback(in); got != want {
				t.Fatalf("isLoopback(%q) = %t, want %t", in, got, want)
			}
		})
	}
}
