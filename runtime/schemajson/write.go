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
func Schema(v Value) []byte {
	var b strings.Builder
	write(&b, v, ctxSchema)
	return []byte(b.String())
}

// Canonical writes v as plain JSON data with every object's members sorted
// bytewise by key.
func Canonical(v Value) []byte {
	var b strings.Builder
	write(&b, v, ctxData)
	return []byte(b.String())
}

// Compact writes v with object members in their stored order.
func Compact(v Value) []byte {
	var b strings.Builder
	writeOrdered(&b, v)
	return []byte(b.String())
}

func write(b *strings.Builder, v Value, ctx context) {
	switch v.Kind {
	case Array:
		itemCtx := ctxData
		if ctx == ctxSchemaList || ctx == ctxSchema {
			// An array where a schema is expected is draft 4's list form
			// of "items": a list of schemas.
			itemCtx = ctxSchema
		}
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			write(b, it, itemCtx)
		}
		b.WriteByte(']')
	case Object:
		members := v.Members
		if ctx != ctxProperties {
			members = slices.Clone(members)
			slices.SortStableFunc(members, func(x, y Member) int { return strings.Compare(x.Key, y.Key) })
		}
		b.WriteByte('{')
		for i, m := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			WriteString(b, m.Key)
			b.WriteByte(':')
			write(b, m.Value, memberContext(ctx, m.Key))
		}
		b.WriteByte('}')
	default:
		writeScalar(b, v)
	}
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

func writeOrdered(b *strings.Builder, v Value) {
	switch v.Kind {
	case Array:
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeOrdered(b, it)
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			WriteString(b, m.Key)
			b.WriteByte(':')
			writeOrdered(b, m.Value)
		}
		b.WriteByte('}')
	default:
		writeScalar(b, v)
	}
}

func writeScalar(b *strings.Builder, v Value) {
	switch v.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		if v.Bool {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case Number:
		b.WriteString(v.Text)
	case String:
		WriteString(b, v.Text)
	}
}

const hexDigits = "0123456789abcdef"

// WriteString writes s as a JSON string, quoted as encoding/json does with
// SetEscapeHTML(false): control characters, quote and backslash escaped,
// invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped so the output
// is also valid JavaScript.
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
