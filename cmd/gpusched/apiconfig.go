package main

import (
	"cmp"
	"errors"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
)

// apiClient builds the client of the user commands (submit, queue, cancel):
// the server from GPUSCHED_SERVER (default http://127.0.0.1:8080), the token
// from GPUSCHED_TOKEN or GPUSCHED_TOKEN_FILE.
func apiClient(getenv func(string) string) (*apiclient.Client, error) {
	tok, err := secretOrValue("GPUSCHED_TOKEN", getenv)
	if err != nil {
		return nil, err
	}
	if tok == "" {
		return nil, errors.New("set GPUSCHED_TOKEN to a personal token (gpusched token create --user EMAIL, or the dashboard's tokens page)")
	}
	c := apiclient.New(cmp.Or(getenv("GPUSCHED_SERVER"), "http://127.0.0.1:8080"), tok)
	c.UserAgent = "gpusched/" + version
	return c, nil
}
