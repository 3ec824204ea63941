package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// Text checks shared by every decoder of the API: a text field must be valid
// UTF-8 and must not hold NUL (PostgreSQL's text refuses both, which would
// otherwise surface as a 500 from the database). Each failure is a 400 that
// names the field.

// badText returns the 400 for a text value at field.
func badText(field, why string) error {
	return Errorf(http.StatusBadRequest, api.CodeInvalidText, "field %q %s", field, why)
}

// textProblem says what is wrong with s as text, or "" when nothing is.
func textProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "must not contain NUL bytes"
	}
	return ""
}

// checkBodyText refuses a JSON body that is not valid UTF-8, naming the
// field that holds the bad bytes (encoding/json would silently replace
// them with U+FFFD).
func checkBodyText(body []byte) error {
	if utf8.Valid(body) {
		return nil
	}
	return badText(invalidUTF8Field(body), "is not valid UTF-8")
}

// invalidUTF8Field returns the path ("gpus[0].uuid") of the JSON key or
// string value that holds the first invalid UTF-8 byte of body ("body" when
// it cannot tell).
func invalidUTF8Field(body []byte) string {
	at := len(body)
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && n <= 1 {
			at = i
			break
		}
		i += n
	}
	type level struct {
		object bool
		key    string
		index  int
		keyNow bool // in an object, the next string is a key
	}
	var stack []level
	path := func(extra string) string {
		var b strings.Builder
		for _, l := range stack {
			if l.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(l.key)
			} else {
				fmt.Fprintf(&b, "[%d]", l.index)
			}
		}
		if extra != "" {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(extra)
		}
		if b.Len() == 0 {
			return "body"
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	value := func() { // a value ended: advance the enclosing container
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].keyNow = true
			} else {
				stack[n-1].index++
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return path("")
		}
		end := dec.InputOffset()
		inKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].keyNow
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, level{object: true, keyNow: true})
			case '[':
				stack = append(stack, level{})
			default:
				stack = stack[:len(stack)-1]
				value()
			}
		case string:
			if inKey {
				top := &stack[len(stack)-1]
				if end > int64(at) {
					return path(t)
				}
				top.key, top.keyNow = t, false
				continue
			}
			if end > int64(at) {
				return path("")
			}
			value()
		default:
			value()
		}
	}
}

// checkText walks a decoded request (a pointer to a struct, usually) and
// refuses the first string — field, element, map key or value — that is
// not acceptable text, naming it by its JSON path.
func checkText(v any) error {
	return walkText(reflect.ValueOf(v), "")
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
)

func walkText(v reflect.Value, path string) error {
	if v.Kind() == reflect.Struct && v.Type().Implements(marshalerType) {
		// A value with its own spelling (api.JobRef): check what it reads as.
		b, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return nil
		}
		return walkText(reflect.ValueOf(json.RawMessage(b)), path)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return walkText(v.Elem(), path)
	case reflect.String:
		if why := textProblem(v.String()); why != "" {
			return badText(orBody(path), why)
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
				if err := walkText(v.Field(i), path); err != nil {
					return err
				}
				continue
			}
			if name == "" {
				name = f.Name
			}
			if err := walkText(v.Field(i), join(path, name)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type() == rawMessageType {
			var doc any
			if json.Unmarshal(v.Bytes(), &doc) != nil {
				return nil // the handler decodes it and answers for its syntax
			}
			return walkText(reflect.ValueOf(doc), path)
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes, not text
		}
		for i := range v.Len() {
			if err := walkText(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			k := it.Key()
			name := fmt.Sprint(k.Interface())
			if k.Kind() == reflect.String {
				if why := textProblem(k.String()); why != "" {
					return badText(orBody(path), "has a key that "+why)
				}
			}
			if err := walkText(it.Value(), join(path, name)); err != nil {
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

// CheckParams is middleware that refuses a request whose path parameters,
// query parameters or URL-encoded form fields are not acceptable text, with
// a 400 naming the parameter, before any handler sees them.
func CheckParams(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		for i, name := range c.ParamNames() {
			if i < len(c.ParamValues()) {
				if why := textProblem(c.ParamValues()[i]); why != "" {
					return badText(name, why)
				}
			}
		}
		for name, vals := range c.QueryParams() {
			if err := checkValues(name, vals); err != nil {
				return err
			}
		}
		r := c.Request()
		if ct, _, _ := strings.Cut(r.Header.Get(echo.HeaderContentType), ";"); strings.TrimSpace(ct) == echo.MIMEApplicationForm && r.Method != http.MethodGet {
			if err := r.ParseForm(); err != nil {
				return Errorf(http.StatusBadRequest, api.CodeInvalidForm, "the form could not be read: %v", err)
			}
			for name, vals := range r.PostForm {
				if err := checkValues(name, vals); err != nil {
					return err
				}
			}
		}
		return next(c)
	}
}

func checkValues(name string, vals []string) error {
	if why := textProblem(name); why != "" {
		return badText("parameter name", why)
	}
	for _, v := range vals {
		if why := textProblem(v); why != "" {
			return badText(name, why)
		}
	}
	return nil
}
