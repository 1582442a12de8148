package capability

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/vox-lang/vox-mcp/internal/vox/eval"
)

// ---- csv, toml, yaml ----
//
// The reference's readers and writers of text formats (spec 22 §2.3 and
// §2.4). They work on strings only: io.open and io.save, which pick a
// format by a file's extension, stay denied, and fs.read / fs.write are
// the confined file access. Values pass through JSON-shaped data, objects
// with their keys sorted as the reference's are. What a reader builds is
// counted against the call's allocation budget and max_value_bytes as it
// is built (the builder type), so a small document cannot expand into a
// large value: a YAML alias expanded many times is counted each time.

// maxDocDepth is the nesting a reader accepts, as json.parse.
const maxDocDepth = 512

// builder builds a value from decoded data, counting its size.
type builder struct {
	th   *eval.Thread
	size int64
	max  int64
}

func newBuilder(th *eval.Thread) *builder { return &builder{th: th, max: th.MaxValueBytes()} }

// errTooLarge: the value would be over max_value_bytes.
var errTooLarge = errors.New("too large")

// count adds n bytes to the value being built; over the limit it stops
// the build with errTooLarge.
func (b *builder) count(n int64) error {
	b.size += n
	b.th.Charge(n) // the allocation budget fails the call when it runs out
	if b.max > 0 && b.size > b.max {
		return errTooLarge
	}
	return nil
}

func (b *builder) tooLarge(ns string) eval.Value {
	return eval.ErrVal(eval.Str(fmt.Sprintf("%s.parse: the document's value is over the limit of %d bytes for one value (max_value_bytes)", ns, b.max)))
}

func (b *builder) str(s string) (eval.Value, error) {
	return eval.Str(s), b.count(16 + int64(len(s)))
}

// object makes a map of keys (sorted here) and their values.
func (b *builder) object(keys []string, val func(string) (eval.Value, error)) (eval.Value, error) {
	slices.Sort(keys)
	o := &eval.Object{}
	for _, k := range keys {
		if err := b.count(16 + int64(len(k))); err != nil {
			return eval.Value{}, err
		}
		v, err := val(k)
		if err != nil {
			return eval.Value{}, err
		}
		o.Set(k, v)
	}
	return eval.NewObject(o), nil
}

// plain converts data decoded by the TOML module to a value.
func (b *builder) plain(x any, depth int) (eval.Value, error) {
	if depth > maxDocDepth {
		return eval.Value{}, fmt.Errorf("value nested deeper than %d", maxDocDepth)
	}
	if err := b.count(16); err != nil {
		return eval.Value{}, err
	}
	switch x := x.(type) {
	case nil:
		return eval.Unit, nil
	case bool:
		return eval.Bool(x), nil
	case int64:
		return eval.Int(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return eval.Unit, nil
		}
		return eval.Float(x), nil
	case string:
		return b.str(x)
	case time.Time:
		return b.str(tomlTime(x))
	case fmt.Stringer: // toml.LocalDate, LocalTime, LocalDateTime: their TOML text
		return b.str(x.String())
	case []map[string]any:
		elems := make([]eval.Value, len(x))
		for i, e := range x {
			v, err := b.plain(e, depth+1)
			if err != nil {
				return eval.Value{}, err
			}
			elems[i] = v
		}
		return eval.NewList(elems), nil
	case []any:
		elems := make([]eval.Value, len(x))
		for i, e := range x {
			v, err := b.plain(e, depth+1)
			if err != nil {
				return eval.Value{}, err
			}
			elems[i] = v
		}
		return eval.NewList(elems), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		return b.object(keys, func(k string) (eval.Value, error) { return b.plain(x[k], depth+1) })
	}
	return eval.Value{}, fmt.Errorf("unsupported value %T", x)
}

// toPlain is the JSON-shaped data of a value for the writers: Option,
// Result, variants and functions become nil, as NaN and infinite floats
// do (spec 22 §2.4).
func toPlain(th *eval.Thread, v eval.Value, depth int) (any, error) {
	if depth > maxDocDepth {
		return nil, fmt.Errorf("value nested deeper than %d", maxDocDepth)
	}
	th.Work(1)
	var elems []eval.Value
	switch v.Kind() {
	case eval.KBool:
		return v.Bool(), nil
	case eval.KInt:
		return v.Int(), nil
	case eval.KFloat:
		if f := v.Float(); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, nil
		}
		return nil, nil
	case eval.KDec:
		f, _ := strconv.ParseFloat(th.Display(v), 64)
		return f, nil
	case eval.KStr:
		return v.Str(), nil
	case eval.KList:
		elems = v.List().Elems()
	case eval.KTuple:
		elems = v.Tuple()
	case eval.KObject:
		o := v.Object()
		out := make(map[string]any, o.Len())
		for _, k := range o.Keys() {
			e, _ := o.Get(k)
			p, err := toPlain(th, e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = p
		}
		return out, nil
	default:
		return nil, nil
	}
	out := make([]any, len(elems))
	for i, e := range elems {
		p, err := toPlain(th, e, depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// ---- csv ----

func csvReader(text string) *csv.Reader {
	r := csv.NewReader(strings.NewReader(text))
	r.LazyQuotes = true // as Rust's csv crate, a stray quote is text
	return r
}

// csvRows reads every row; ragged rows are an error unless ragged.
func csvRows(th *eval.Thread, method, text string, ragged bool) ([][]string, eval.Value) {
	th.Work(int64(len(text)))
	r := csvReader(text)
	if ragged {
		r.FieldsPerRecord = -1
	}
	var rows [][]string
	for {
		row, err := r.Read()
		if err == io.EOF {
			return rows, eval.Value{}
		}
		if err != nil {
			return nil, eval.ErrVal(eval.Str("csv." + method + ": " + err.Error()))
		}
		rows = append(rows, row)
	}
}

// csvParse is csv.parse: every row, the first as well, as lists of
// strings.
func csvParse(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	rows, errVal := csvRows(th, "parse", strArg(th, "csv", "parse", args[0]), false)
	if rows == nil && errVal.Kind() == eval.KErr {
		return errVal
	}
	b := newBuilder(th)
	out := make([]eval.Value, len(rows))
	for i, row := range rows {
		cells := make([]eval.Value, len(row))
		for j, c := range row {
			v, err := b.str(c)
			if err != nil {
				return b.tooLarge("csv")
			}
			cells[j] = v
		}
		out[i] = eval.NewList(cells)
	}
	return eval.OkVal(eval.NewList(out))
}

// csvParseRecords is csv.parse_records: the first row names the cells of
// the others.
func csvParseRecords(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	rows, errVal := csvRows(th, "parse_records", strArg(th, "csv", "parse_records", args[0]), true)
	if rows == nil && errVal.Kind() == eval.KErr {
		return errVal
	}
	b := newBuilder(th)
	out := []eval.Value{}
	for i := 1; i < len(rows); i++ {
		cells := map[string]string{}
		for j, c := range rows[i] {
			key := "column_" + strconv.Itoa(j)
			if j < len(rows[0]) {
				key = rows[0][j]
			}
			cells[key] = c
		}
		keys := make([]string, 0, len(cells))
		for k := range cells {
			keys = append(keys, k)
		}
		rec, err := b.object(keys, func(k string) (eval.Value, error) { return b.str(cells[k]) })
		if err != nil {
			return b.tooLarge("csv")
		}
		out = append(out, rec)
	}
	return eval.OkVal(eval.NewList(out))
}

// csvRender is csv.render: a line per row ending in \n, a field quoted
// only when it must be, as Rust's csv crate writes.
func csvRender(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	bad := eval.ErrVal(eval.Str("csv.render: expected list[list[str]]"))
	if args[0].Kind() != eval.KList {
		return bad
	}
	var sb strings.Builder
	for _, row := range args[0].List().Elems() {
		if row.Kind() != eval.KList {
			return bad
		}
		cells := row.List().Elems()
		if len(cells) == 1 && cells[0].Kind() == eval.KStr && cells[0].Str() == "" {
			sb.WriteString("\"\"\n")
			continue
		}
		for i, c := range cells {
			if c.Kind() != eval.KStr {
				return bad
			}
			if i > 0 {
				sb.WriteByte(',')
			}
			s := c.Str()
			if strings.ContainsAny(s, ",\"\r\n") {
				s = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
			}
			sb.WriteString(s)
		}
		sb.WriteByte('\n')
		th.CheckSize(int64(sb.Len()))
	}
	th.Charge(int64(sb.Len()))
	return eval.OkVal(eval.Str(sb.String()))
}

// ---- toml ----

// tomlTime is a TOML date-time as TOML writes it: the TOML module marks
// the local kinds (no offset) by the names of their zones.
func tomlTime(t time.Time) string {
	switch t.Location().String() {
	case "date-local":
		return t.Format("2006-01-02")
	case "time-local":
		return t.Format("15:04:05.999999999")
	case "datetime-local":
		return t.Format("2006-01-02T15:04:05.999999999")
	}
	return t.Format(time.RFC3339Nano)
}

// tomlRoot is the key under which toml.render wraps a value that is not a
// map, and toml.parse unwraps it, as the reference does.
const tomlRoot = "__vox_json_root"

func tomlParse(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	text := strArg(th, "toml", "parse", args[0])
	th.Work(int64(len(text)))
	var doc map[string]any
	if _, err := toml.Decode(text, &doc); err != nil {
		return eval.ErrVal(eval.Str("toml.parse: " + err.Error()))
	}
	b := newBuilder(th)
	var x any = doc
	if root, ok := doc[tomlRoot]; ok && len(doc) == 1 {
		x = root
	}
	v, err := b.plain(x, 0)
	switch {
	case errors.Is(err, errTooLarge):
		return b.tooLarge("toml")
	case err != nil:
		return eval.ErrVal(eval.Str("toml.parse: " + err.Error()))
	}
	return eval.OkVal(v)
}

// nullToEmpty replaces every nil of x by "": TOML has no null, and the
// reference renders one as the empty string.
func nullToEmpty(x any) any {
	switch x := x.(type) {
	case nil:
		return ""
	case []any:
		for i := range x {
			x[i] = nullToEmpty(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = nullToEmpty(x[k])
		}
	}
	return x
}

func tomlRender(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	x, err := toPlain(th, args[0], 0)
	if err != nil {
		return eval.ErrVal(eval.Str("toml.render: " + err.Error()))
	}
	m, ok := x.(map[string]any)
	if !ok {
		m = map[string]any{tomlRoot: x}
	}
	nullToEmpty(m)
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(m); err != nil {
		return eval.ErrVal(eval.Str("toml.render: " + err.Error()))
	}
	th.CheckSize(int64(buf.Len()))
	th.Charge(int64(buf.Len()))
	return eval.OkVal(eval.Str(buf.String()))
}
