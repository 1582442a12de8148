package cliutil

import (
	"io"
	"slices"
	"testing"
)

func TestParseInterspersed(t *testing.T) {
	cases := []struct {
		args    []string
		pos     []string
		format  string
		verbose bool
	}{
		{[]string{"a.vox", "--format", "json", "b"}, []string{"a.vox", "b"}, "json", false},
		{[]string{"--format=json", "x", "-v"}, []string{"x"}, "json", true},
		{[]string{"x", "--", "-v", "--format", "y"}, []string{"x", "-v", "--format", "y"}, "text", false},
		{[]string{}, nil, "text", false},
	}
	for _, c := range cases {
		fs := NewFlagSet("t", io.Discard)
		format := fs.String("format", "text", "")
		verbose := fs.Bool("v", false, "")
		pos, err := Parse(fs, c.args)
		if err != nil || !slices.Equal(pos, c.pos) || *format != c.format || *verbose != c.verbose {
			t.Errorf("%q: pos %q format %q v %v err %v", c.args, pos, *format, *verbose, err)
		}
	}
	fs := NewFlagSet("t", io.Discard)
	if _, err := Parse(fs, []string{"x", "--nope"}); err == nil {
		t.Error("unknown flag accepted")
	}
	fs = NewFlagSet("t", io.Discard)
	if _, err := Parse(fs, []string{"-h"}); !IsHelp(err) {
		t.Errorf("-h: %v", err)
	}
}
