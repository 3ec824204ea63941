package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gpuscheduler/gpuscheduler/internal/testkit/testdb"
	"github.com/gpuscheduler/gpuscheduler/models"
)

// UserToken creates a user with role and returns a personal token for them.
func (s *Server) UserToken(t testing.TB, role string) (string, *models.User) {
	t.Helper()
	u := testdb.User(t, s.DB, role)
	plain, _, err := models.CreateUserToken(context.Background(), s.DB.Bun, u.ID, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return plain, u
}

// NodeToken creates node name (if new) and returns a node token for it.
func (s *Server) NodeToken(t testing.TB, name string) (string, *models.Node) {
	t.Helper()
	n, err := models.EnsureNode(context.Background(), s.DB.Bun, name)
	if err != nil {
		t.Fatal(err)
	}
	plain, _, err := models.CreateNodeToken(context.Background(), s.DB.Bun, n.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return plain, n
}

// Do sends a request with an optional bearer token and raw body, and returns
// the status and body.
func (s *Server) Do(t testing.TB, method, path, token, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// APIError decodes a JSON error body, failing the test if it is not one.
func APIError(t testing.TB, body []byte) (msg, code string) {
	t.Helper()
	var e struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Error == "" || e.Code == "" {
		t.Fatalf("body is not a JSON error {error, code}: %s", body)
	}
	return e.Error, e.Code
}
