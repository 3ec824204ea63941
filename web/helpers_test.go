package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

func testNow() time.Time { return time.Now() }

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustJSON(t testing.TB, body []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

func contains(body []byte, s string) bool { return bytes.Contains(body, []byte(s)) }

func newReq(method, url, body, token, contentType string) (*http.Request, error) {
	req, err := http.NewRequest(method, url, bytes.NewBufferString(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

func registerBodyFor(prefix string, gpus int) string {
	return strings.ReplaceAll(registerBody(gpus), "GPU-a-", "GPU-"+prefix+"-")
}
