package cli

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuscheduler/gpuscheduler/internal/apiclient"
)

// storedLogin is what `gpusched login` keeps for the user commands.
type storedLogin struct {
	Server string `json:"server"`
	Token  string `json:"token"`
}

// loginFile is where the login is kept: the user's config folder
// (GPUSCHED_CONFIG_DIR overrides it, for tests and odd setups).
func loginFile(getenv func(string) string) (string, error) {
	dir := getenv("GPUSCHED_CONFIG_DIR")
	if dir == "" {
		base, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("find the config folder: %w", err)
		}
		dir = filepath.Join(base, "gpusched")
	}
	return filepath.Join(dir, "login.json"), nil
}

// readLogin returns the stored login, or a zero one when there is none.
func readLogin(getenv func(string) string) (storedLogin, error) {
	var l storedLogin
	path, err := loginFile(getenv)
	if err != nil {
		return l, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("read the stored login: %w", err)
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return l, fmt.Errorf("stored login %s: %w", path, err)
	}
	return l, nil
}

func newLoginCmd() *cobra.Command {
	var server, token string
	cmd := &cobra.Command{
		Use:   "login [--server URL] [--token TOKEN]",
		Short: "Store a personal token for the CLI (GPUSCHED_TOKEN overrides it)",
		Long: `Store a personal token (and the server it is for) in your config folder, readable
only by you (mode 0600), so that submit, queue, cancel, logs… need no GPUSCHED_TOKEN.
Without --token the token is read from standard input. The token is checked first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			server = cmp.Or(server, os.Getenv("GPUSCHED_SERVER"), "http://127.0.0.1:8080")
			if token == "" {
				fmt.Fprint(cmd.ErrOrStderr(), "Personal token: ")
				line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
				if err != nil && line == "" {
					return fmt.Errorf("read the token: %w", err)
				}
				token = strings.TrimSpace(line)
			}
			var me struct {
				User struct {
					Email string `json:"email"`
				} `json:"user"`
			}
			if err := apiclient.New(server, token).Do(cmd.Context(), "GET", "/api/v1/me", nil, &me); err != nil {
				return fmt.Errorf("the server refused the token: %w", err)
			}
			path, err := loginFile(os.Getenv)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return fmt.Errorf("store the login: %w", err)
			}
			b, _ := json.Marshal(storedLogin{Server: server, Token: token})
			tmp := path + ".tmp"
			if err := os.WriteFile(tmp, b, 0o600); err != nil {
				return fmt.Errorf("store the login: %w", err)
			}
			if err := os.Rename(tmp, path); err != nil {
				return fmt.Errorf("store the login: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "logged in to %s as %s (token stored in %s)\n", server, me.User.Email, path)
			return nil
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "control plane URL (env GPUSCHED_SERVER, default http://127.0.0.1:8080)")
	cmd.Flags().StringVar(&token, "token", "", "personal token (default: read from standard input)")
	return cmd
}
