package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Args is a call's argument object decoded one level deep: each member's
// raw JSON by name. The generated decoders read it member by member, in
// the order and with the message forms of docs/tool-results.md §3, which
// workspace tools share.
type Args struct {
	members map[string]json.RawMessage
}

// DecodeArgs decodes the arguments of a call. Empty arguments and null
// are the empty object; anything but a JSON object is an error.
func DecodeArgs(raw json.RawMessage) (Args, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return Args{}, nil
	}
	if trimmed[0] == '{' {
		var m map[string]json.RawMessage
		if err := json.NewDecoder(bytes.NewReader(trimmed)).Decode(&m); err != nil {
			return Args{}, fmt.Errorf("arguments must be a JSON object: %v", err)
		}
		return Args{members: m}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Args{}, fmt.Errorf("arguments must be a JSON object: %v", err)
	}
	return Args{}, fmt.Errorf("arguments must be a JSON object, got %s", kindOf(v))
}

// Only refuses members other than names (an input schema with
// additionalProperties: false); of several, the first by name is named.
func (a Args) Only(names ...string) error {
	var unknown []string
	for name := range a.members {
		if !slices.Contains(names, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("unknown argument: %s", unknown[0])
}

// Require refuses a call where one of names is absent or null, naming the
// first in the order given (the schema's required list).
func (a Args) Require(names ...string) error {
	for _, name := range names {
		if v, ok := a.members[name]; !ok || isNull(v) {
			return fmt.Errorf("missing argument: %s", name)
		}
	}
	return nil
}

// Get returns a member that was given and is not null: an explicit null is
// the same as leaving an optional argument out.
func (a Args) Get(name string) (Value, bool) {
	raw, ok := a.members[name]
	if !ok || isNull(raw) {
		return Value{}, false
	}
	return Value{Name: name, Raw: raw}, true
}

// GetNullable returns a member that was given, null included (for a
// property whose type admits null).
func (a Args) GetNullable(name string) (Value, bool) {
	raw, ok := a.members[name]
	if !ok {
		return Value{}, false
	}
	return Value{Name: name, Raw: raw}, true
}

// Extra returns the members other than names, nil when there are none
// (an open input schema passes undeclared arguments on).
func (a Args) Extra(names ...string) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for name, raw := range a.members {
		if slices.Contains(names, name) {
			continue
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[name] = raw
	}
	return out
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// Value is one argument as sent.
type Value struct {
	Name string
	Raw  json.RawMessage
}

// Kind names the JSON type of the value as argument errors do: string,
// integer, number, boolean, array, object or null.
func (v Value) Kind() string {
	raw := bytes.TrimSpace(v.Raw)
	if len(raw) == 0 {
		return "null"
	}
	switch raw[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return "integer"
	}
	return "number"
}

// Text is the value's JSON text as sent, for messages.
func (v Value) Text() string { return string(bytes.TrimSpace(v.Raw)) }

// want is the type error: "argument <name>: want <types>, got <kind>".
func (v Value) want(types ...string) error {
	return fmt.Errorf("argument %s: want %s, got %s", v.Name, strings.Join(types, " or "), v.Kind())
}

// HasType reports whether the value is of the JSON Schema type t; a
// number is an integer when its value is integral (1.0 and 1e2 are).
func (v Value) HasType(t string) bool {
	switch t {
	case "integer":
		r, ok := v.rat()
		return ok && r.IsInt()
	case "number":
		_, ok := v.rat()
		return ok
	}
	return v.Kind() == t
}

// CheckType refuses a value that has none of the JSON Schema types given.
func (v Value) CheckType(types ...string) error {
	for _, t := range types {
		if v.HasType(t) {
			return nil
		}
	}
	return v.want(types...)
}

func (v Value) rat() (*big.Rat, bool) {
	switch k := v.Kind(); k {
	case "integer", "number":
		return new(big.Rat).SetString(v.Text())
	}
	return nil, false
}

// String decodes a string argument.
func (v Value) String() (string, error) {
	var s string
	if v.Kind() != "string" || json.Unmarshal(v.Raw, &s) != nil {
		return "", v.want("string")
	}
	return s, nil
}

// Bool decodes a boolean argument.
func (v Value) Bool() (bool, error) {
	var b bool
	if v.Kind() != "boolean" || json.Unmarshal(v.Raw, &b) != nil {
		return false, v.want("boolean")
	}
	return b, nil
}

// Int decodes an integer argument: any integral number (1, 1.0, 1e2)
// that fits 64 bits.
func (v Value) Int() (int64, error) {
	r, ok := v.rat()
	if !ok || !r.IsInt() {
		return 0, v.want("integer")
	}
	n := r.Num()
	if !n.IsInt64() {
		if n.Sign() < 0 {
			return 0, fmt.Errorf("argument %s: want at least %d, got %s", v.Name, int64(-1<<63), v.Text())
		}
		return 0, fmt.Errorf("argument %s: want at most %d, got %s", v.Name, int64(1<<63-1), v.Text())
	}
	return n.Int64(), nil
}

// Float decodes a number argument.
func (v Value) Float() (float64, error) {
	r, ok := v.rat()
	if !ok {
		return 0, v.want("number")
	}
	f, _ := r.Float64()
	return f, nil
}

// Object decodes an object argument one level deep.
func (v Value) Object() (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if v.Kind() != "object" || json.Unmarshal(v.Raw, &m) != nil {
		return nil, v.want("object")
	}
	return m, nil
}

// StringMap decodes an object whose every value must be a string (an
// object schema with additionalProperties: {type: string}); of several
// bad values, the first by key is named.
func (v Value) StringMap() (map[string]string, error) {
	m, err := v.Object()
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(map[string]string, len(m))
	for _, k := range keys {
		s, err := Value{Name: v.Name, Raw: m[k]}.String()
		if err != nil {
			return nil, fmt.Errorf("argument %s: the value of %q must be a string of UTF-8 text", v.Name, k)
		}
		out[k] = s
	}
	return out, nil
}

// Strings decodes an array whose every item must be a string.
func (v Value) Strings() ([]string, error) {
	var items []json.RawMessage
	if v.Kind() != "array" || json.Unmarshal(v.Raw, &items) != nil {
		return nil, v.want("array")
	}
	out := make([]string, len(items))
	for i, it := range items {
		s, err := Value{Name: v.Name, Raw: it}.String()
		if err != nil {
			return nil, fmt.Errorf("argument %s: item %d must be a string", v.Name, i)
		}
		out[i] = s
	}
	return out, nil
}

// NotOneOf is the enum error: want lists the allowed values as JSON,
// joined by ", " (the generator writes it); the value is shown as
// encoding/json writes it.
func (v Value) NotOneOf(want string) error {
	return fmt.Errorf("argument %s: want one of %s, got %s", v.Name, want, v.canonical())
}

// OneOf reports whether the value, written as encoding/json writes it,
// is one of the allowed values written the same way (for enums of other
// than strings).
func (v Value) OneOf(allowed ...string) bool { return slices.Contains(allowed, v.canonical()) }

func (v Value) canonical() string {
	dec := json.NewDecoder(bytes.NewReader(v.Raw))
	dec.UseNumber()
	var x any
	if dec.Decode(&x) != nil {
		return v.Text()
	}
	b, _ := json.Marshal(x)
	return string(b)
}

// BelowMinimum is the error of a number under the schema's minimum, given
// as the generator writes it (an exact fraction, "1" or "1/2").
func (v Value) BelowMinimum(min string) error {
	return fmt.Errorf("argument %s: want at least %s, got %s", v.Name, min, v.Text())
}

// AboveMaximum is the error of a number over the schema's maximum.
func (v Value) AboveMaximum(max string) error {
	return fmt.Errorf("argument %s: want at most %s, got %s", v.Name, max, v.Text())
}

// CheckBounds compares any number with the exact bounds min and max ("" for
// none); values that are not numbers pass.
func (v Value) CheckBounds(min, max string) error {
	r, ok := v.rat()
	if !ok {
		return nil
	}
	if b, ok := new(big.Rat).SetString(min); min != "" && ok && r.Cmp(b) < 0 {
		return v.BelowMinimum(b.RatString())
	}
	if b, ok := new(big.Rat).SetString(max); max != "" && ok && r.Cmp(b) > 0 {
		return v.AboveMaximum(b.RatString())
	}
	return nil
}

// CheckMinLength refuses a string shorter than n characters (runes).
func (v Value) CheckMinLength(s string, n int) error {
	if utf8.RuneCountInString(s) >= n {
		return nil
	}
	if n == 1 {
		return fmt.Errorf("argument %s: want a non-empty string", v.Name)
	}
	return fmt.Errorf("argument %s: want at least %d characters", v.Name, n)
}

// kindOf names the JSON type of a value decoded with UseNumber.
func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
