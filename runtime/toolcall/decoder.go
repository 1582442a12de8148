package toolcall

import (
	"encoding/json"
	"strings"
)

// Rules are the checks of one argument that its input schema states,
// written out by the generator: nothing is parsed from a schema at run
// time.
type Rules struct {
	// Types are the declared JSON types when they are not one plain type
	// (several, or with null); the value must have one of them.
	Types []string
	// Nullable: the types admit null, which then passes as a value.
	Nullable bool
	// Enum are the allowed values as encoding/json writes them.
	Enum []string
	// Min and Max are exact bounds ("1", "1/2"), "" for none.
	Min, Max string
	// MinLength is the least number of characters of a string.
	MinLength int
}

// Decoder reads one call's arguments for a generated decoder, one
// argument per method call, in the order and with the messages of
// docs/tool-results.md §3: after the first error every method does
// nothing, and Err returns that error.
type Decoder struct {
	args Args
	err  error
}

// Decode starts decoding raw arguments (empty and null are {}).
func Decode(raw json.RawMessage) *Decoder {
	a, err := DecodeArgs(raw)
	return &Decoder{args: a, err: err}
}

// Err is the first error, nil when every argument passed.
func (d *Decoder) Err() error { return d.err }

// Only refuses arguments other than names (a closed schema).
func (d *Decoder) Only(names ...string) {
	if d.err == nil {
		d.err = d.args.Only(names...)
	}
}

// Require refuses a call where one of names is absent or null.
func (d *Decoder) Require(names ...string) {
	if d.err == nil {
		d.err = d.args.Require(names...)
	}
}

// Extra returns the arguments other than names (an open schema).
func (d *Decoder) Extra(names ...string) map[string]json.RawMessage {
	return d.args.Extra(names...)
}

// value returns the argument to check, and whether there is one; a null
// passes only for a nullable argument, after the type and enum checks.
func (d *Decoder) value(name string, r Rules) (Value, bool) {
	if d.err != nil {
		return Value{}, false
	}
	get := d.args.Get
	if r.Nullable {
		get = d.args.GetNullable
	}
	v, ok := get(name)
	if !ok {
		return v, false
	}
	if len(r.Types) > 0 {
		if d.err = v.CheckType(r.Types...); d.err != nil {
			return v, false
		}
	}
	if len(r.Enum) > 0 && !v.OneOf(r.Enum...) {
		d.err = v.NotOneOf(strings.Join(r.Enum, ", "))
		return v, false
	}
	return v, v.Kind() != "null"
}

// bounds checks a number against Min and Max, then a string's length.
func (d *Decoder) bounds(v Value, r Rules) {
	if d.err == nil && (r.Min != "" || r.Max != "") {
		d.err = v.CheckBounds(r.Min, r.Max)
	}
	if d.err == nil && r.MinLength > 0 && v.Kind() == "string" {
		s, _ := v.String()
		d.err = v.CheckMinLength(s, r.MinLength)
	}
}

// String reads a string argument into dst.
func (d *Decoder) String(name string, dst *string, r Rules) {
	if v, ok := d.value(name, r); ok {
		if *dst, d.err = v.String(); d.err == nil {
			d.bounds(v, r)
		}
	}
}

// StringPtr reads an optional string argument: dst stays nil when absent.
func (d *Decoder) StringPtr(name string, dst **string, r Rules) {
	var x string
	if v, ok := d.value(name, r); ok {
		if x, d.err = v.String(); d.err == nil {
			*dst = &x
			d.bounds(v, r)
		}
	}
}

// Int reads an integer argument into dst.
func (d *Decoder) Int(name string, dst *int64, r Rules) {
	if v, ok := d.value(name, r); ok {
		if *dst, d.err = v.Int(); d.err == nil {
			d.bounds(v, r)
		}
	}
}

// IntPtr reads an optional integer argument.
func (d *Decoder) IntPtr(name string, dst **int64, r Rules) {
	var x int64
	if v, ok := d.value(name, r); ok {
		if x, d.err = v.Int(); d.err == nil {
			*dst = &x
			d.bounds(v, r)
		}
	}
}

// Float reads a number argument into dst.
func (d *Decoder) Float(name string, dst *float64, r Rules) {
	if v, ok := d.value(name, r); ok {
		if *dst, d.err = v.Float(); d.err == nil {
			d.bounds(v, r)
		}
	}
}

// FloatPtr reads an optional number argument.
func (d *Decoder) FloatPtr(name string, dst **float64, r Rules) {
	var x float64
	if v, ok := d.value(name, r); ok {
		if x, d.err = v.Float(); d.err == nil {
			*dst = &x
			d.bounds(v, r)
		}
	}
}

// Bool reads a boolean argument into dst.
func (d *Decoder) Bool(name string, dst *bool, r Rules) {
	if v, ok := d.value(name, r); ok {
		*dst, d.err = v.Bool()
	}
}

// BoolPtr reads an optional boolean argument.
func (d *Decoder) BoolPtr(name string, dst **bool, r Rules) {
	var x bool
	if v, ok := d.value(name, r); ok {
		if x, d.err = v.Bool(); d.err == nil {
			*dst = &x
		}
	}
}

// Strings reads an array of strings.
func (d *Decoder) Strings(name string, dst *[]string, r Rules) {
	if v, ok := d.value(name, r); ok {
		*dst, d.err = v.Strings()
	}
}

// Object checks that an argument is an object; StringMap reads its values
// after every argument was checked.
func (d *Decoder) Object(name string, r Rules) {
	if v, ok := d.value(name, r); ok {
		_, d.err = v.Object()
	}
}

// StringMap reads an object whose every value is a string (an object
// schema with additionalProperties: {type: string}).
func (d *Decoder) StringMap(name string, dst *map[string]string) {
	if d.err != nil {
		return
	}
	if v, ok := d.args.Get(name); ok {
		*dst, d.err = v.StringMap()
	}
}

// Raw keeps an argument as JSON after the checks of its rules.
func (d *Decoder) Raw(name string, dst *json.RawMessage, r Rules) {
	if v, ok := d.value(name, r); ok {
		d.bounds(v, r)
		*dst = v.Raw
	} else if d.err == nil && r.Nullable {
		if v, given := d.args.GetNullable(name); given {
			*dst = v.Raw
		}
	}
}
