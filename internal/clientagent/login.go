package clientagent

import (
	"fmt"
	"io"
	"strings"
)

// Secret names the agent stores in the keyring by default.
const (
	SecretControlPlane = "gpuscheduler"
)

// Login asks for the control-plane token and the LLM key (read by ask,
// which should not echo) and stores them in the OS keyring under
// "gpuscheduler" and llmName. An empty LLM key is skipped (local servers
// need none). It tells out how to refer to them in config.yaml.
func Login(out io.Writer, ask func(prompt string) (string, error), llmName string) error {
	token, err := ask("GPUScheduler API token (from `gpusched token create`): ")
	if err != nil {
		return fmt.Errorf("clientagent: login: %w", err)
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return fmt.Errorf("clientagent: login: no token given")
	}
	if err := KeyringSet(SecretControlPlane, token); err != nil {
		return err
	}
	fmt.Fprintf(out, "stored; in config.yaml: gpuscheduler.api_key: \"keyring(%s)\"\n", SecretControlPlane)
	key, err := ask(fmt.Sprintf("API key of your LLM (%s), empty to skip: ", llmName))
	if err != nil {
		return fmt.Errorf("clientagent: login: %w", err)
	}
	if key = strings.TrimSpace(key); key == "" {
		return nil
	}
	if err := KeyringSet(llmName, key); err != nil {
		return err
	}
	fmt.Fprintf(out, "stored; in config.yaml: llm.api_key: \"keyring(%s)\"\n", llmName)
	return nil
}
