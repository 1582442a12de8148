// Package schemajson holds JSON values whose object members keep their
// order, and writes JSON Schema literals in the product's canonical byte form
// (docs/contracts.md §2): compact UTF-8 without HTML escaping, the members of
// every "properties" object in source order, the members of every other
// object sorted bytewise by key, integers without exponent or fraction.
//
// Both schema sources use it: the generator for catalog input schemas written
// in YAML, and the Vox schema mapping for tool parameters. mcp-go forwards
// the bytes unchanged, so this form is exactly what clients see.
package schemajson

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is a JSON value. Objects keep their members in insertion order;
// writers decide the output order.
type Value struct {
	Kind    Kind
	Bool    bool
	Text    string // the string of a String; the canonical literal of a Number
	Items   []Value
	Members []Member
}

// Member is one key and value of an object.
type Member struct {
	Key   string
	Value Value
}

// NullValue returns JSON null.
func NullValue() Value { return Value{Kind: Null} }

// BoolValue returns a JSON boolean.
func BoolValue(b bool) Value { return Value{Kind: Bool, Bool: b} }

// StringValue returns a JSON string.
func StringValue(s string) Value { return Value{Kind: String, Text: s} }

// IntValue returns a JSON integer.
func IntValue(i int64) Value { return Value{Kind: Number, Text: strconv.FormatInt(i, 10)} }

// FloatValue returns a JSON number; integral values are written as
// integers. NaN and infinities have no JSON form and are an error.
func FloatValue(f float64) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}, fmt.Errorf("%v has no JSON form", f)
	}
	return Value{Kind: Number, Text: formatFloat(f)}, nil
}

// NumberValue returns a JSON number from a decimal literal such as "12",
// "-0.5" or "1e3", normalised to the canonical form.
func NumberValue(literal string) (Value, error) {
	text, err := canonicalNumber(literal)
	if err != nil {
		return Value{}, err
	}
	return Value{Kind: Number, Text: text}, nil
}

// ArrayValue returns a JSON array.
func ArrayValue(items ...Value) Value {
	if items == nil {
		items = []Value{}
	}
	return Value{Kind: Array, Items: items}
}

// ObjectValue returns a JSON object with members in the given order.
func ObjectValue(members ...Member) Value {
	if members == nil {
		members = []Member{}
	}
	return Value{Kind: Object, Members: members}
}

// Get returns the value of an object member.
func (v Value) Get(key string) (Value, bool) {
	if v.Kind != Object {
		return Value{}, false
	}
	for _, m := range v.Members {
		if m.Key == key {
			return m.Value, true
		}
	}
	return Value{}, false
}

// Any converts v to the generic Go form used by encoding/json with
// UseNumber (and by JSON Schema validators): map[string]any, []any,
// json.Number, string, bool, nil.
func (v Value) Any() any {
	switch v.Kind {
	case Bool:
		return v.Bool
	case Number:
		return json.Number(v.Text)
	case String:
		return v.Text
	case Array:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = it.Any()
		}
		return out
	case Object:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			out[m.Key] = m.Value.Any()
		}
		return out
	}
	return nil
}

// canonicalNumber normalises a JSON or YAML decimal literal: integral values
// become plain integers ("1.0" and "1e3" are "1" and "1000"), other values
// take encoding/json's float form.
func canonicalNumber(literal string) (string, error) {
	lit := strings.TrimPrefix(literal, "+")
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return "", fmt.Errorf("invalid number %q", literal)
	}
	if r.IsInt() && (!strings.ContainsAny(lit, ".eE") || r.Num().CmpAbs(maxPlainInt) < 0) {
		return r.Num().String(), nil
	}
	f, _ := r.Float64()
	if math.IsInf(f, 0) {
		return "", fmt.Errorf("number %q is out of range", literal)
	}
	return formatFloat(f), nil
}

// maxPlainInt is where encoding/json switches floats to exponent form; an
// integral value written with a fraction or exponent below it is written as
// a plain integer.
var maxPlainInt = new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil)

// formatFloat writes f as encoding/json does, except that integral values
// below 2^63 in magnitude are written as integers.
func formatFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return strconv.FormatInt(int64(f), 10)
	}
	b, _ := json.Marshal(f)
	return string(b)
}
