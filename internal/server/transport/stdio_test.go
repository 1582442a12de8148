package transport

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestLineFilter: what the reader of a LineFilter yields is, line by
// line, what Line passed on — nothing for a line it answered, its
// rewrite for a line it changed — blank lines never reach Line, and an
// error of Line ends the reading after what was passed before it.
func TestLineFilter(t *testing.T) {
	in := "answered\n\n  \nkept\nrewritten\nlast without newline"
	var seen []string
	f := &LineFilter{In: bufio.NewReader(strings.NewReader(in)), Line: func(line []byte) ([]byte, error) {
		seen = append(seen, string(line))
		switch strings.TrimSpace(string(line)) {
		case "answered":
			return nil, nil
		case "rewritten":
			return []byte("REWRITTEN\n"), nil
		}
		return WithNewline(line), nil
	}}
	got, err := io.ReadAll(iotest.OneByteReader(f))
	if err != nil || string(got) != "kept\nREWRITTEN\nlast without newline\n" {
		t.Fatalf("read %q, %v; want the kept, the rewritten and the last line", got, err)
	}
	if len(seen) != 4 {
		t.Errorf("Line saw %q; want the four non-blank lines", seen)
	}

	stop := errors.New("stop")
	f = &LineFilter{In: bufio.NewReader(strings.NewReader("one\ntwo\nthree\n")), Line: func(line []byte) ([]byte, error) {
		if string(line) == "two\n" {
			return nil, stop
		}
		return line, nil
	}}
	got, err = io.ReadAll(f)
	if !errors.Is(err, stop) || string(got) != "one\n" {
		t.Errorf("read %q, %v; want %q and the error of Line", got, err, "one\n")
	}
}
