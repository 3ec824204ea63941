package api

import (
	"encoding/json"
	"errors"
	"reflect"
)

// The flexible values (Priority, Seconds, JobRef, GPURefs) refuse what they cannot read
// with a *json.UnmarshalTypeError: encoding/json then fills in the path of
// the field that held it, which an error of another type would not get.
// Its Value is the sentence that says what the field accepts, and its
// Type the flexible value's type; InvalidValue takes both out again.

// invalidValue is T's refusal of a value: problem says what is wrong.
func invalidValue[T any](problem string) error {
	return &json.UnmarshalTypeError{Value: problem, Type: reflect.TypeFor[T]()}
}

// flexible are the types whose refusals InvalidValue explains.
var flexible = map[reflect.Type]bool{
	reflect.TypeFor[Priority](): true, reflect.TypeFor[Seconds](): true, reflect.TypeFor[JobRef](): true,
	reflect.TypeFor[GPURefs](): true,
}

// InvalidValue reports whether err (from decoding a request) is the
// refusal of a flexible value, and if so the JSON path of its field
// ("priority", "a.b") and the sentence that says what is wrong ("must be
// 1–4 or low, normal, high, critical, got 7").
func InvalidValue(err error) (field, problem string, ok bool) {
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) || !flexible[typ.Type] {
		return "", "", false
	}
	return typ.Field, typ.Value, true
}
