package cli

import (
	"cmp"
	"errors"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
)

// apiClient builds the client of the user commands (submit, queue, cancel…):
// the server from GPUSCHED_SERVER (else the stored login's, else
// http://127.0.0.1:8080), the token from GPUSCHED_TOKEN or
// GPUSCHED_TOKEN_FILE, else the one `gpusched login` stored; its User-Agent
// names the version of cmd's binary.
func apiClient(cmd *cobra.Command, getenv func(string) string) (*apiclient.Client, error) {
	tok, err := SecretOrValue("GPUSCHED_TOKEN", getenv)
	if err != nil {
		return nil, err
	}
	server := getenv("GPUSCHED_SERVER")
	var stored storedLogin
	if tok == "" || server == "" { // scripts set both: no file to read
		if stored, err = readLogin(getenv); err != nil {
			return nil, err
		}
	}
	if tok == "" {
		tok = stored.Token
	}
	if tok == "" {
		return nil, errors.New("set GPUSCHED_TOKEN to a personal token, or store one with gpusched login (create one with gpusched token create --user EMAIL, or the dashboard's tokens page)")
	}
	c := apiclient.New(cmp.Or(server, stored.Server, "http://127.0.0.1:8080"), tok)
	c.UserAgent = "gpusched/" + cmd.Root().Version
	return c, nil
}
