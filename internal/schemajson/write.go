package schemajson

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// context says how the members of an object are ordered and what its
// member values are.
type context uint8

const (
	ctxData       context = iota // plain JSON data: objects sorted by key
	ctxSchema                    // a JSON Schema object or boolean
	ctxProperties                // the value of "properties": source order, values are schemas
	ctxSchemaMap                 // $defs, patternProperties, ...: sorted, values are schemas
	ctxSchemaList                // allOf, prefixItems, ...: items are schemas
)

// schemaKeywords maps the keywords whose values are (collections of)
// schemas to the context of that value; other keywords hold plain data.
var schemaKeywords = map[string]context{
	"properties":            ctxProperties,
	"patternProperties":     ctxSchemaMap,
	"$defs":                 ctxSchemaMap,
	"definitions":           ctxSchemaMap,
	"dependentSchemas":      ctxSchemaMap,
	"items":                 ctxSchema, // a list form (draft 4) is handled as a list of schemas
	"additionalItems":       ctxSchema,
	"additionalProperties":  ctxSchema,
	"unevaluatedItems":      ctxSchema,
	"unevaluatedProperties": ctxSchema,
	"propertyNames":         ctxSchema,
	"contains":              ctxSchema,
	"not":                   ctxSchema,
	"if":                    ctxSchema,
	"then":                  ctxSchema,
	"else":                  ctxSchema,
	"contentSchema":         ctxSchema,
	"allOf":                 ctxSchemaList,
	"anyOf":                 ctxSchemaList,
	"oneOf":                 ctxSchemaList,
	"prefixItems":           ctxSchemaList,
}

// Schema writes v, a JSON Schema, in the canonical byte form.
func Schema(v Value) []byte { return write(nil, v, ctxSchema) }

// AppendSchema appends Schema(v) to dst.
func AppendSchema(dst []byte, v Value) []byte { return write(dst, v, ctxSchema) }

// Canonical writes v as plain JSON data with every object's members sorted
// bytewise by key.
func Canonical(v Value) []byte { return write(nil, v, ctxData) }

// AppendCanonical appends Canonical(v) to dst.
func AppendCanonical(dst []byte, v Value) []byte { return write(dst, v, ctxData) }

// Compact writes v with object members in their stored order.
func Compact(v Value) []byte { return writeOrdered(nil, v) }

func byKey(x, y Member) int { return strings.Compare(x.Key, y.Key) }

func write(b []byte, v Value, ctx context) []byte {
	switch v.Kind {
	case Array:
		itemCtx := ctxData
		if ctx == ctxSchemaList || ctx == ctxSchema {
			// An array where a schema is expected is draft 4's list form
			// of "items": a list of schemas.
			itemCtx = ctxSchema
		}
		b = append(b, '[')
		for i, it := range v.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = write(b, it, itemCtx)
		}
		return append(b, ']')
	case Object:
		members := v.Members
		// Objects built in key order (as the Vox schema mapping builds
		// them) are written without sorting a copy.
		if ctx != ctxProperties && !slices.IsSortedFunc(members, byKey) {
			members = slices.Clone(members)
			slices.SortStableFunc(members, byKey)
		}
		b = append(b, '{')
		for i, m := range members {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, m.Key)
			b = append(b, ':')
			b = write(b, m.Value, memberContext(ctx, m.Key))
		}
		return append(b, '}')
	}
	return appendScalar(b, v)
}

func memberContext(parent context, key string) context {
	switch parent {
	case ctxSchema:
		if c, ok := schemaKeywords[key]; ok {
			return c
		}
		return ctxData
	case ctxProperties, ctxSchemaMap:
		return ctxSchema
	}
	return ctxData
}

func writeOrdered(b []byte, v Value) []byte {
	switch v.Kind {
	case Array:
		b = append(b, '[')
		for i, it := range v.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = writeOrdered(b, it)
		}
		return append(b, ']')
	case Object:
		b = append(b, '{')
		for i, m := range v.Members {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, m.Key)
			b = append(b, ':')
			b = writeOrdered(b, m.Value)
		}
		return append(b, '}')
	}
	return appendScalar(b, v)
}

func appendScalar(b []byte, v Value) []byte {
	switch v.Kind {
	case Null:
		return append(b, "null"...)
	case Bool:
		if v.Bool {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case Number:
		return append(b, v.Text...)
	case String:
		return AppendString(b, v.Text)
	}
	return b
}

const hexDigits = "0123456789abcdef"

// AppendString appends s quoted as encoding/json does with
// SetEscapeHTML(false): control characters, quote and backslash escaped,
// invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped so the output
// is also valid JavaScript.
func AppendString(b []byte, s string) []byte {
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

// WriteString writes s to b quoted as AppendString does. The two are kept
// apart rather than one calling the other so that neither copies the
// string through a scratch buffer (TestWriteStringMatchesAppendString).
func WriteString(b *strings.Builder, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b.WriteString(s[start:i])
			b.WriteString(`\u202`)
			b.WriteByte(hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
