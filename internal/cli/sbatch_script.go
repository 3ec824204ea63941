package cli

import (
	"fmt"
	"strings"
)

// directive is one #SBATCH line's options and its line number.
type directive struct {
	line int
	args []string
}

// scriptDirectives reads a batch script's #SBATCH lines as Slurm does: from
// the top until the first command line (blank lines and other comments
// before it are fine; #SBATCH lines after it are ignored). A directive's
// options are split as a shell would (quotes hold spaces), up to a comment.
func scriptDirectives(script string) ([]directive, error) {
	var out []directive
	for i, line := range strings.Split(script, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if !strings.HasPrefix(t, "#") {
			break // the first command
		}
		rest, ok := strings.CutPrefix(t, "#SBATCH")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		args, err := splitDirective(rest)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if len(args) > 0 {
			out = append(out, directive{line: i + 1, args: args})
		}
	}
	return out, nil
}

// splitDirective splits a directive's text into words: whitespace
// separates, single and double quotes hold, an unquoted # starts a comment.
func splitDirective(s string) ([]string, error) {
	var out []string
	var word strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\r':
			if inWord {
				out, inWord = append(out, word.String()), false
				word.Reset()
			}
		case r == '#' && !inWord:
			return out, nil
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c in #SBATCH%s", quote, s)
	}
	if inWord {
		out = append(out, word.String())
	}
	return out, nil
}

// interpreter is the command a script's shebang names ("/bin/bash",
// "/usr/bin/env python3"); /bin/sh when it has none.
func interpreter(script string) []string {
	first, _, _ := strings.Cut(script, "\n")
	if rest, ok := strings.CutPrefix(first, "#!"); ok {
		if f := strings.Fields(rest); len(f) > 0 {
			return f
		}
	}
	return []string{"/bin/sh"}
}

// batchCommand is the job's command line for a batch script: it writes the
// script's text to a private temporary file on the node, sends output to
// the files the agent named in GPUSCHED_STDOUT and GPUSCHED_STDERR (their
// % patterns already expanded; stderr joins stdout when only that is
// given; the first part truncates them and appends), and runs the script
// with its interpreter and arguments. In a multi-node job the script runs
// once, on the first node, as in Slurm (the node agent runs a worker for
// srun on the others); an agent that predates that runs it on every node,
// each appending.
func batchCommand(script string, args []string) string {
	run := append(interpreter(script), `"$f"`)
	for _, a := range args {
		run = append(run, shellJoin([]string{a}))
	}
	return strings.Join([]string{
		`f=$(mktemp "${TMPDIR:-/tmp}/sbatch.XXXXXX") || exit 1`,
		`printf '%s' ` + shellJoin([]string{script}) + ` >"$f" || exit 1`,
		`chmod 700 "$f"`,
		// The first part truncates, then appends (where every part runs
		// the script, they share the files when the folder is shared).
		`first() { [ "${GPUSCHED_NODE_RANK:-0}" != 0 ] || : >"$1"; }`,
		`if [ -n "${GPUSCHED_STDOUT-}" ]; then first "$GPUSCHED_STDOUT" && exec >>"$GPUSCHED_STDOUT" || exit 1; [ -n "${GPUSCHED_STDERR-}" ] || exec 2>&1; fi`,
		`if [ -n "${GPUSCHED_STDERR-}" ]; then first "$GPUSCHED_STDERR" && exec 2>>"$GPUSCHED_STDERR" || exit 1; fi`,
		strings.Join(run, " ") + `; r=$?; rm -f "$f"; exit $r`,
	}, "\n")
}
