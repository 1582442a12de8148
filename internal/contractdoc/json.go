package contractdoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/vox-lang/vox-mcp/internal/schemajson"
)

// ParseJSON decodes src as one JSON value, keeping the position of every
// value and key. Numbers keep their literal (canonicalised by schemajson);
// duplicate keys are errors; a syntax error stops decoding and is reported
// at its line and column.
func ParseJSON(src []byte) (*Doc, []PosError) {
	p := &jsonParser{src: src, doc: newDoc(), dec: json.NewDecoder(bytes.NewReader(src))}
	p.dec.UseNumber()
	root, err := p.value("", 0)
	if err == nil {
		if _, extra := p.dec.Token(); extra != io.EOF {
			err = p.errAt(p.start(), "unexpected data after the JSON value")
		}
	}
	if err != nil {
		var pe *PosError
		if errors.As(err, &pe) {
			return nil, append(p.errs, *pe)
		}
		return nil, append(p.errs, PosError{Pos{1, 1}, err.Error()})
	}
	p.doc.Root = root
	return p.doc, p.errs
}

type jsonParser struct {
	src  []byte
	dec  *json.Decoder
	doc  *Doc
	errs []PosError // non-fatal (duplicate keys)
}

func (e *PosError) Error() string { return e.Message }

// start is the offset where the next token begins: the decoder's offset
// after the previous token, past whitespace and the separators the
// decoder consumes silently.
func (p *jsonParser) start() int {
	off := int(p.dec.InputOffset())
	for off < len(p.src) {
		switch p.src[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// position converts a byte offset into a 1-based line and column.
func (p *jsonParser) position(off int) Pos {
	if off > len(p.src) {
		off = len(p.src)
	}
	line := 1 + bytes.Count(p.src[:off], []byte{'\n'})
	col := off + 1
	if i := bytes.LastIndexByte(p.src[:off], '\n'); i >= 0 {
		col = off - i
	}
	return Pos{line, col}
}

func (p *jsonParser) errAt(off int, format string, args ...any) error {
	return &PosError{p.position(off), fmt.Sprintf(format, args...)}
}

func (p *jsonParser) token() (json.Token, int, error) {
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, int(se.Offset), p.errAt(int(se.Offset), "invalid JSON: %s", se.Error())
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, len(p.src), p.errAt(len(p.src), "invalid JSON: unexpected end of file")
		}
		return nil, off, p.errAt(off, "invalid JSON: %s", err.Error())
	}
	return tok, off, nil
}

func (p *jsonParser) value(pointer string, depth int) (schemajson.Value, error) {
	tok, off, err := p.token()
	if err != nil {
		return schemajson.Value{}, err
	}
	p.doc.valuePos[pointer] = p.position(off)
	if depth > MaxDepth {
		return schemajson.Value{}, p.errAt(off, "nested deeper than %d levels", MaxDepth)
	}
	switch t := tok.(type) {
	case nil:
		return schemajson.NullValue(), nil
	case bool:
		return schemajson.BoolValue(t), nil
	case string:
		return schemajson.StringValue(t), nil
	case json.Number:
		v, err := schemajson.NumberValue(string(t))
		if err != nil {
			return schemajson.Value{}, p.errAt(off, "invalid number %s", t)
		}
		return v, nil
	case json.Delim:
		switch t {
		case '[':
			var items []schemajson.Value
			for i := 0; p.dec.More(); i++ {
				it, err := p.value(pointer+"/"+strconv.Itoa(i), depth+1)
				if err != nil {
					return schemajson.Value{}, err
				}
				items = append(items, it)
			}
			if _, _, err := p.token(); err != nil { // ']'
				return schemajson.Value{}, err
			}
			return schemajson.ArrayValue(items...), nil
		case '{':
			var members []schemajson.Member
			seen := map[string]int{}
			for p.dec.More() {
				ktok, koff, err := p.token()
				if err != nil {
					return schemajson.Value{}, err
				}
				key := ktok.(string) // the decoder guarantees a string key here
				child := pointer + "/" + EscapePointer(key)
				kpos := p.position(koff)
				v, err := p.value(child, depth+1)
				if err != nil {
					return schemajson.Value{}, err
				}
				if line, dup := seen[key]; dup {
					p.errs = append(p.errs, PosError{kpos, fmt.Sprintf("duplicate key %q (first at line %d)", key, line)})
					continue
				}
				seen[key] = kpos.Line
				p.doc.keyPos[child] = kpos
				members = append(members, schemajson.Member{Key: key, Value: v})
			}
			if _, _, err := p.token(); err != nil { // '}'
				return schemajson.Value{}, err
			}
			return schemajson.ObjectValue(members...), nil
		}
	}
	return schemajson.Value{}, p.errAt(off, "invalid JSON")
}
