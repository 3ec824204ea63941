package cli

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// gpusched run passes the agent's refusal on, and says what to do when no
// agent answers.
func TestRunRefusals(t *testing.T) {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error": "num_gpus: must be between 0 and 8 (this node's GPUs), got 9"}`))
	}))
	defer agent.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	nobody := "http://" + ln.Addr().String()
	ln.Close()
	tests := map[string]struct {
		url, want string
		args      []string
	}{
		"refused":         {url: agent.URL, want: "between 0 and 8", args: []string{"run", "-g", "9", "--", "true"}},
		"no agent":        {url: nobody, want: "start gpusched node", args: []string{"run", "--", "true"}},
		"no such command": {url: agent.URL, want: "cannot run", args: []string{"run", "--", "no-such-command-here"}},
		"bad memory":      {url: agent.URL, want: "--mem", args: []string{"run", "--mem", "lots", "--", "true"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("GPUSCHED_URL", tc.url)
			if _, err := gpusched(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
