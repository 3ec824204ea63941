package cli

import (
	"fmt"
	"strconv"
)

// eachID parses every argument as the id of a what ("job", "booking") and
// calls fn with it in order, stopping at the first error (named by its id,
// once).
func eachID(args []string, what string, fn func(id int64) error) error {
	for _, a := range args {
		id, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a %s id", a, what)
		}
		if err := fn(id); err != nil {
			return prefixOnce(what, id, err)
		}
	}
	return nil
}
