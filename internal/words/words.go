// Package words writes counts for people: "1 GPU", "2 GPUs", "1 job".
// Every page, CLI line and notification that prints a count of things goes
// through it, so that no sentence says "1 GPUs" or "GPU(s)".
package words

import "strconv"

// irregular holds the plurals that are not the noun plus "s".
var irregular = map[string]string{
	"entry":   "entries",
	"process": "processes",
	"is":      "are",
	"was":     "were",
	"has":     "have",
	"its":     "their",
}

// Plural is noun as it reads after n: noun itself for 1 (and -1), its
// plural otherwise ("GPU" → "GPUs", "entry" → "entries").
func Plural(n int, noun string) string {
	if n == 1 || n == -1 {
		return noun
	}
	if p, ok := irregular[noun]; ok {
		return p
	}
	return noun + "s"
}

// Count is n followed by noun in the right number: "1 GPU", "0 GPUs",
// "3 jobs".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Plural(n, noun)
}
