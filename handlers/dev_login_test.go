package handlers

import "testing"

func TestSafeNext(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"":                      "/",
		"/":                     "/",
		"/admin/river?x=1":      "/admin/river?x=1",
		"//evil.example.com/":   "/",
		"/\\evil.example.com":   "/",
		"https://evil.example/": "/",
		"javascript:alert(1)":   "/",
		"relative/path":         "/",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			if got := safeNext(in); got != want {
				t.Fatalf("safeNext(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

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
