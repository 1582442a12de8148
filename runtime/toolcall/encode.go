package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// Encoder writes a result object as compact JSON, byte for byte as
// encoding/json writes the same value with SetEscapeHTML(false). The
// generated result types write themselves through it in one pass; the
// server sends the bytes as the text content and as structuredContent
// (docs/tool-results.md §1), so a result is encoded once.
type Encoder struct {
	buf   []byte
	first []bool // per open object or array: nothing written in it yet
	err   error
}

// Bytes returns what was written, or the first error (a NaN or infinite
// number, invalid raw JSON).
func (e *Encoder) Bytes() ([]byte, error) {
	if e.err != nil {
		return nil, fmt.Errorf("encoding the result: %w", e.err)
	}
	return e.buf, nil
}

// Open starts an object.
func (e *Encoder) Open() { e.buf = append(e.buf, '{'); e.first = append(e.first, true) }

// Close ends an object.
func (e *Encoder) Close() { e.buf = append(e.buf, '}'); e.first = e.first[:len(e.first)-1] }

// OpenArray starts an array.
func (e *Encoder) OpenArray() { e.buf = append(e.buf, '['); e.first = append(e.first, true) }

// CloseArray ends an array.
func (e *Encoder) CloseArray() { e.buf = append(e.buf, ']'); e.first = e.first[:len(e.first)-1] }

// Key starts a member; quoted is the key already written as a JSON string
// (the generator quotes keys with Quote).
func (e *Encoder) Key(quoted string) {
	e.sep()
	e.buf = append(e.buf, quoted...)
	e.buf = append(e.buf, ':')
}

// Elem starts an array item.
func (e *Encoder) Elem() { e.sep() }

func (e *Encoder) sep() {
	top := len(e.first) - 1
	if top < 0 {
		return
	}
	if !e.first[top] {
		e.buf = append(e.buf, ',')
	}
	e.first[top] = false
}

// String writes a string.
func (e *Encoder) String(s string) { e.buf = AppendQuoted(e.buf, s) }

// Int writes an integer.
func (e *Encoder) Int(i int64) { e.buf = strconv.AppendInt(e.buf, i, 10) }

// Bool writes a boolean.
func (e *Encoder) Bool(b bool) { e.buf = strconv.AppendBool(e.buf, b) }

// Null writes null.
func (e *Encoder) Null() { e.buf = append(e.buf, "null"...) }

// Float writes a number as encoding/json does: the shortest
// representation, with an exponent only below 1e-6 or from 1e21.
func (e *Encoder) Float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if e.err == nil {
			e.err = fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
		}
		e.Null()
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(e.buf, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	e.buf = b
}

// Strings writes a list of strings; nil is the empty array (arrays are
// never null, docs/tool-results.md).
func (e *Encoder) Strings(list []string) {
	e.OpenArray()
	for _, s := range list {
		e.Elem()
		e.String(s)
	}
	e.CloseArray()
}

// Raw writes raw JSON compacted; nil is null.
func (e *Encoder) Raw(raw json.RawMessage) {
	if raw == nil {
		e.Null()
		return
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		if e.err == nil {
			e.err = err
		}
		e.Null()
		return
	}
	e.buf = append(e.buf, b.Bytes()...)
}

// Null is a result member whose schema type is "null": it is always
// written as null (an optional one, *Null, is left out when nil).
type Null struct{}

// Quote returns s as a JSON string, as encoding/json writes it with
// SetEscapeHTML(false).
func Quote(s string) string { return string(AppendQuoted(nil, s)) }

const hexDigits = "0123456789abcdef"

// AppendQuoted appends s as a JSON string exactly as encoding/json does
// with SetEscapeHTML(false): quote, backslash and control characters
// escaped (\b \f \n \r \t by name), invalid UTF-8 as U+FFFD, U+2028 and
// U+2029 escaped.
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, `\b`...)
			case '\f':
				b = append(b, `\f`...)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, `\u00`...)
				b = append(b, hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Ptr returns a pointer to v (generated decoders use it for defaults of
// nullable arguments).
func Ptr[T any](v T) *T { return &v }

// RawResult is the result of a catalog tool whose row declares no output
// schema with properties: any JSON object, written as JSON holds it (nil
// is {}).
type RawResult struct {
	JSON json.RawMessage
}

// EncodeJSON writes the result.
func (r *RawResult) EncodeJSON(e *Encoder) {
	if r.JSON == nil {
		e.Open()
		e.Close()
		return
	}
	e.Raw(r.JSON)
}
