package clientagent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// notebook is the part of a Jupyter notebook (nbformat 4) the agent reads.
type notebook struct {
	Cells []struct {
		CellType string          `json:"cell_type"`
		Source   json.RawMessage `json:"source"` // a string or a list of strings
	} `json:"cells"`
}

// notebookCode returns the source of a notebook's code cells, one after
// the other; markdown and outputs are left out.
func notebookCode(data []byte) (string, error) {
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return "", fmt.Errorf("clientagent: not a notebook: %w", err)
	}
	var b strings.Builder
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		var one string
		if err := json.Unmarshal(c.Source, &one); err != nil {
			var lines []string
			if err := json.Unmarshal(c.Source, &lines); err != nil {
				continue
			}
			one = strings.Join(lines, "")
		}
		b.WriteString(strings.TrimRight(one, "\n"))
		b.WriteString("\n\n")
	}
	return b.String(), nil
}
