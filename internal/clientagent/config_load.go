package clientagent

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ConfigError is a problem in the config file, with where it is.
type ConfigError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// Error reads "config.yaml:12: monitors[1].type: must be …".
func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// Secrets resolves env(VAR) and keyring(NAME) references.
type Secrets struct {
	Getenv  func(string) string
	Keyring func(name string) (string, error)
}

var (
	envRef     = regexp.MustCompile(`^env\(([A-Za-z_][A-Za-z0-9_]*)\)$`)
	keyringRef = regexp.MustCompile(`^keyring\(([^()\s]+)\)$`)
)

// Load reads and validates the config at path. Warnings are returned for
// things that work but should change (a plain key in the file).
func Load(path string, s Secrets) (*Config, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("clientagent: read config: %w", err)
	}
	return Parse(path, data, s)
}

// Parse is Load on data already read; path is used in messages.
func Parse(path string, data []byte, s Secrets) (*Config, []string, error) {
	// Unknown fields first, on the text as written.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&Config{}); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	p := &parser{file: path, secrets: s}
	p.substitute(&root, "")
	if len(p.errs) > 0 {
		return nil, nil, errors.Join(p.errs...)
	}
	cfg := &Config{Path: path}
	if err := root.Decode(cfg); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	p.validate(cfg, &root)
	if len(p.errs) > 0 {
		return nil, p.warns, errors.Join(p.errs...)
	}
	return cfg, p.warns, nil
}

// parser collects errors and warnings with their lines.
type parser struct {
	file    string
	secrets Secrets
	errs    []error
	warns   []string
}

func (p *parser) fail(line int, field, format string, args ...any) {
	p.errs = append(p.errs, &ConfigError{File: p.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) warn(line int, field, format string, args ...any) {
	p.warns = append(p.warns, (&ConfigError{File: p.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}).Error())
}

// substitute replaces env(VAR) and keyring(NAME) scalars in place and warns
// about secrets written in clear.
func (p *parser) substitute(n *yaml.Node, field string) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			f := field
			if n.Kind == yaml.SequenceNode {
				f = fmt.Sprintf("%s[%d]", field, i)
			}
			p.substitute(c, f)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			f := n.Content[i].Value
			if field != "" {
				f = field + "." + f
			}
			p.substitute(n.Content[i+1], f)
		}
	case yaml.ScalarNode:
		p.scalar(n, field)
	}
}

func (p *parser) scalar(n *yaml.Node, field string) {
	v := strings.TrimSpace(n.Value)
	switch {
	case envRef.MatchString(v):
		name := envRef.FindStringSubmatch(v)[1]
		val := ""
		if p.secrets.Getenv != nil {
			val = p.secrets.Getenv(name)
		}
		if val == "" {
			p.fail(n.Line, field, "environment variable %s is not set", name)
		}
		n.Value, n.Tag, n.Style = val, "!!str", 0
	case keyringRef.MatchString(v):
		name := keyringRef.FindStringSubmatch(v)[1]
		if p.secrets.Keyring == nil {
			p.fail(n.Line, field, "no OS keyring available for keyring(%s)", name)
			return
		}
		val, err := p.secrets.Keyring(name)
		if err != nil || val == "" {
			p.fail(n.Line, field, "keyring(%s): %v; store it with `gpusched-agent login`", name, errOr(err, "empty"))
		}
		n.Value, n.Tag, n.Style = val, "!!str", 0
	case strings.HasSuffix(field, "api_key") && v != "":
		p.warn(n.Line, field, "a plain key in the config file; prefer keyring(NAME) (gpusched-agent login) or env(VAR)")
	}
}

func errOr(err error, s string) any {
	if err != nil {
		return err
	}
	return s
}

// expandHome turns a leading ~ into the home folder.
func expandHome(path string) string {
	if path != "~" && !strings.HasPrefix(path, "~/") {
		return path
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return path
	}
	return filepath.Join(home, strings.TrimPrefix(path, "~"))
}

// UnmarshalYAML reads "30m", "90s" or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if v, err := time.ParseDuration(n.Value); err == nil && v >= 0 {
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := n.Decode(&secs); err != nil || secs < 0 {
		return fmt.Errorf("line %d: %q is not a duration like 30m or 90s", n.Line, n.Value)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}
