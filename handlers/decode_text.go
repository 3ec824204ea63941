package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Text checks shared by every decoder of the API: a text field must be valid
// UTF-8 without NUL (PostgreSQL's text refuses both, which would otherwise
// surface as a 500 from the database) and must follow its field's rule for
// control characters (text_rules.go). Each failure is a 400 that names the
// field.

// badText returns the 400 for a text value at field.
func badText(field, why string) error {
	return Errorf(http.StatusBadRequest, api.CodeInvalidText, "field %q %s", field, why)
}

// checkText walks a decoded request (a pointer to a struct, usually) and
// refuses the first string — field, element, map key or value — that its
// field's rule refuses, naming it by its JSON path; fields that span lines
// get their line breaks normalised in place. base is oneLine (each field
// by its rule) or anyText (every field takes any text).
func checkText(v any, base textRule) error {
	return walkText(reflect.ValueOf(v), "", base)
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
)

// ruleAt is the rule of the field at path under base.
func ruleAt(path string, base textRule) textRule {
	if base == anyText {
		return anyText
	}
	return ruleFor(path)
}

func walkText(v reflect.Value, path string, base textRule) error {
	if v.Kind() == reflect.Struct && v.Type().Implements(marshalerType) {
		// A value with its own spelling (api.JobRef): check what it reads as.
		b, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return nil
		}
		return walkText(reflect.ValueOf(json.RawMessage(b)), path, base)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return walkText(v.Elem(), path, base)
	case reflect.String:
		rule := ruleAt(path, base)
		if why := rule.problem(v.String()); why != "" {
			return badText(orBody(path), why)
		}
		if v.CanSet() {
			v.SetString(rule.normalize(v.String()))
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				if err := walkText(v.Field(i), path, base); err != nil {
					return err
				}
				continue
			}
			if name == "" {
				name = f.Name
			}
			if err := walkText(v.Field(i), join(path, name), base); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type() == rawMessageType {
			var doc any
			if json.Unmarshal(v.Bytes(), &doc) != nil {
				return nil // the handler decodes it and answers for its syntax
			}
			return walkText(reflect.ValueOf(doc), path, base)
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes, not text
		}
		for i := range v.Len() {
			if err := walkText(v.Index(i), fmt.Sprintf("%s[%d]", path, i), base); err != nil {
				return err
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			k := it.Key()
			name := fmt.Sprint(k.Interface())
			if k.Kind() == reflect.String {
				keyRule := oneLine
				if base == anyText {
					keyRule = anyText
				}
				if why := keyRule.problem(k.String()); why != "" {
					return badText(orBody(path), "has a key that "+why)
				}
			}
			at := join(path, name)
			if val := it.Value(); val.Kind() == reflect.String {
				rule := ruleAt(at, base)
				if why := rule.problem(val.String()); why != "" {
					return badText(at, why)
				}
				if n := rule.normalize(val.String()); n != val.String() {
					v.SetMapIndex(k, reflect.ValueOf(n).Convert(val.Type()))
				}
				continue
			}
			if err := walkText(it.Value(), at, base); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func orBody(path string) string {
	if path == "" {
		return "body"
	}
	return path
}
