package schemajson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxDepth bounds the nesting of decoded values so that decoding, writing
// and comparing never exhaust the Go stack.
const maxDepth = 512

// Parse decodes one JSON value, keeping object members in document order
// and numbers exact. Duplicate object keys are an error.
func Parse(data []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		return Value{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Value{}, fmt.Errorf("invalid character after top-level value at offset %d", dec.InputOffset())
	}
	return v, nil
}

func parseValue(dec *json.Decoder, depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, fmt.Errorf("value nested deeper than %d", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return Value{}, io.ErrUnexpectedEOF
		}
		return Value{}, err
	}
	switch t := tok.(type) {
	case nil:
		return NullValue(), nil
	case bool:
		return BoolValue(t), nil
	case json.Number:
		return NumberValue(string(t))
	case string:
		return StringValue(t), nil
	case json.Delim:
		switch t {
		case '[':
			items := []Value{}
			for dec.More() {
				it, err := parseValue(dec, depth+1)
				if err != nil {
					return Value{}, err
				}
				items = append(items, it)
			}
			if _, err := dec.Token(); err != nil {
				return Value{}, err
			}
			return ArrayValue(items...), nil
		case '{':
			members := []Member{}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return Value{}, err
				}
				key := kt.(string)
				if seen[key] {
					return Value{}, fmt.Errorf("duplicate key %q at offset %d", key, dec.InputOffset())
				}
				seen[key] = true
				val, err := parseValue(dec, depth+1)
				if err != nil {
					return Value{}, err
				}
				members = append(members, Member{Key: key, Value: val})
			}
			if _, err := dec.Token(); err != nil {
				return Value{}, err
			}
			return ObjectValue(members...), nil
		}
	}
	return Value{}, fmt.Errorf("unexpected token %v", tok)
}
