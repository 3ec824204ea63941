package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gpuscheduler/gpuscheduler/internal/api"
)

// maxJSONBody caps request bodies of the JSON API.
const maxJSONBody = 1 << 20

// decodeJSON reads one JSON object from the request body into v, strictly:
// the content type must be JSON, unknown fields and trailing data are
// refused, text must be valid UTF-8 without NUL (decode_text.go), and every
// failure is a 400 (or 413/415) that says what is wrong.
func decodeJSON(c echo.Context, v any) error {
	_, err := readJSON(c, v)
	return err
}

// decodeNodeJSON is decodeJSON for what node agents report: any text that
// is valid UTF-8 without NUL (process names, output), not one line.
func decodeNodeJSON(c echo.Context, v any) error {
	_, err := readJSONAs(c, v, anyText)
	return err
}

// readJSON is decodeJSON that also returns the raw body (for idempotency).
func readJSON(c echo.Context, v any) ([]byte, error) { return readJSONAs(c, v, oneLine) }

// readJSONAs is readJSON with the text rule base (checkText).
func readJSONAs(c echo.Context, v any, base textRule) ([]byte, error) {
	r := c.Request()
	if ct := r.Header.Get(echo.HeaderContentType); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != echo.MIMEApplicationJSON && !strings.HasSuffix(mt, "+json")) {
			return nil, Errorf(http.StatusUnsupportedMediaType, api.CodeUnsupportedMediaType, "send the body as application/json, not %q", ct)
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, maxJSONBody))
	if err != nil {
		return nil, jsonError(err)
	}
	if err := checkBodyText(body); err != nil {
		return nil, err
	}
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] != '{' {
		return nil, Errorf(http.StatusBadRequest, api.CodeInvalidJSON, "the body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if _, _, ok := api.InvalidValue(err); ok {
			// A priority or duration it cannot read may be bad text: that
			// answer comes first, as for every other text field.
			var doc any
			if json.Unmarshal(body, &doc) == nil {
				if err := checkText(doc, base); err != nil {
					return nil, err
				}
			}
		}
		return nil, jsonError(err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return nil, Errorf(http.StatusBadRequest, api.CodeInvalidJSON, "the body must hold exactly one JSON object")
	}
	if err := checkText(v, base); err != nil {
		return nil, err
	}
	return body, nil
}

func jsonError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tooBig *http.MaxBytesError
	if field, problem, ok := api.InvalidValue(err); ok { // a priority, duration or job id it cannot read
		return invalid(field, "%s", problem)
	}
	switch {
	case errors.Is(err, io.EOF):
		return Errorf(http.StatusBadRequest, api.CodeInvalidJSON, "the request body is empty: send a JSON object")
	case errors.As(err, &syntax):
		return Errorf(http.StatusBadRequest, api.CodeInvalidJSON, "malformed JSON at byte %d: %v", syntax.Offset, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Errorf(http.StatusBadRequest, api.CodeInvalidJSON, "malformed JSON: the body ends too early")
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return Errorf(http.StatusBadRequest, api.CodeInvalidJSON, "the body must be a JSON object, not %s", typ.Value)
		}
		return Errorf(http.StatusBadRequest, api.CodeInvalidField, "field %q must be %s, not %s", field, typ.Type, typ.Value)
	case errors.As(err, &tooBig):
		return Errorf(http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge, "the request body is larger than %d bytes", tooBig.Limit)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return Errorf(http.StatusBadRequest, api.CodeUnknownField, "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return Errorf(http.StatusBadRequest, api.CodeInvalidJSON, "malformed JSON: %v", err)
}

// invalid returns a 400 for a value that decoded but is not acceptable.
func invalid(field, format string, args ...any) error {
	return Errorf(http.StatusBadRequest, api.CodeInvalidField, "%s: %s", field, fmt.Sprintf(format, args...))
}
