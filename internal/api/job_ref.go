package api

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// JobRef names a lease in a release or renewal: the id the API gave (a
// number, or a string of digits), or else the caller's own job_id of the
// lease (any other string). It is sent as the id when ID is set, else as
// the string. The zero value means none was given.
type JobRef struct {
	ID  int64  // the API's id, positive
	Ref string // the caller's own name, when ID is 0
}

// jobRefWant says what a JobRef may be.
const jobRefWant = "required: the id gpu-allocate answered, or your own job_id"

// MarshalJSON sends the id as a number, else the caller's name.
func (r JobRef) MarshalJSON() ([]byte, error) {
	if r.ID > 0 {
		return []byte(strconv.FormatInt(r.ID, 10)), nil
	}
	return json.Marshal(r.Ref)
}

// UnmarshalJSON reads a positive id or a non-empty string; null leaves r
// as it is. Any other value is refused with an error that InvalidValue
// explains.
func (r *JobRef) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var id int64
	if err := json.Unmarshal(b, &id); err == nil {
		if id <= 0 {
			return invalidValue[JobRef](fmt.Sprintf("must be a positive id, not %d", id))
		}
		*r = JobRef{ID: id}
		return nil
	}
	var ref string
	if err := json.Unmarshal(b, &ref); err != nil || ref == "" {
		return invalidValue[JobRef](jobRefWant)
	}
	if n, err := strconv.ParseInt(ref, 10, 64); err == nil && n > 0 {
		*r = JobRef{ID: n}
		return nil
	}
	*r = JobRef{Ref: ref}
	return nil
}

// IsZero reports whether no job was named.
func (r JobRef) IsZero() bool { return r.ID == 0 && r.Ref == "" }
