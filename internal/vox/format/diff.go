package format

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// diff compares two trees with their positions left out and returns the
// first difference, or "" when they are the same. The text of a
// parameter's default (Param.DefaultText) is compared without its blanks:
// it is the default as written, shown in signatures, and the layout
// decides its spacing. Comments are compared by their text, without
// trailing blanks (which the layout drops).
func diff(a, b *syntax.File) string {
	ca, cb := commentTexts(a), commentTexts(b)
	if len(ca) != len(cb) {
		return fmt.Sprintf("%d comments became %d", len(ca), len(cb))
	}
	for i := range ca {
		if ca[i] != cb[i] {
			return fmt.Sprintf("comment %q became %q", ca[i], cb[i])
		}
	}
	return walk("file", reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem(), 0)
}

// eofAsNewline reads a syntax error found at the end of the file as the
// same error found at the final newline the layout adds.
func eofAsNewline(reason string) string {
	return strings.ReplaceAll(reason, "found end of file", "found newline")
}

func commentTexts(f *syntax.File) []string {
	var out []string
	for _, g := range f.Comments {
		for _, c := range g.List {
			out = append(out, strings.TrimRight(c.Text, " \t\f"))
		}
	}
	return out
}

var posType = reflect.TypeOf(syntax.Pos{})

func walk(path string, a, b reflect.Value, depth int) string {
	if depth > 4*1024 {
		return ""
	}
	if a.Kind() != b.Kind() {
		return path + ": kinds differ"
	}
	switch a.Kind() {
	case reflect.Interface, reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": one is missing"
			}
			return ""
		}
		if a.Elem().Type() != b.Elem().Type() {
			return fmt.Sprintf("%s: %s became %s", path, a.Elem().Type(), b.Elem().Type())
		}
		return walk(path, a.Elem(), b.Elem(), depth+1)
	case reflect.Struct:
		if a.Type() == posType {
			return ""
		}
		for i := 0; i < a.NumField(); i++ {
			fld := a.Type().Field(i)
			switch fld.Name {
			case "Comments", "Path":
				continue
			case "Reason":
				// An unavailable function's syntax error names what it
				// found; at the end of a file that is "end of file" before
				// the layout's final newline and "newline" after it.
				if a.Field(i).Kind() == reflect.String && eofAsNewline(a.Field(i).String()) == eofAsNewline(b.Field(i).String()) {
					continue
				}
			case "DefaultText":
				if noBlanks(a.Field(i).String()) != noBlanks(b.Field(i).String()) {
					return path + ".DefaultText differs"
				}
				continue
			}
			if d := walk(path+"."+fld.Name, a.Field(i), b.Field(i), depth+1); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: %d elements became %d", path, a.Len(), b.Len())
		}
		for i := 0; i < a.Len(); i++ {
			if d := walk(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i), depth+1); d != "" {
				return d
			}
		}
		return ""
	case reflect.String:
		if a.String() != b.String() {
			return fmt.Sprintf("%s: %q became %q", path, a.String(), b.String())
		}
		return ""
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		if !a.Equal(b) {
			return fmt.Sprintf("%s: %v became %v", path, a, b)
		}
		return ""
	}
	return ""
}

func noBlanks(s string) string {
	return strings.Join(strings.Fields(s), "")
}
