package transport

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAllSized: a body read into a buffer of its announced size is
// what io.ReadAll reads, whether it is as long as announced or not.
func TestReadAllSized(t *testing.T) {
	for _, c := range []struct {
		body string
		size int64
	}{
		{`{"id":1}`, 8}, {`{"id":1}`, 5}, {`{"id":1}`, 20}, {``, 0}, {``, 4}, {`abc`, -1}, {`abc`, MaxRequestBody + 1},
	} {
		got, err := ReadAllSized(iotest.OneByteReader(strings.NewReader(c.body)), c.size)
		if err != nil || string(got) != c.body {
			t.Errorf("ReadAllSized(%q, %d) = %q, %v; want the whole body", c.body, c.size, got, err)
		}
	}
	boom := errors.New("boom")
	if _, err := ReadAllSized(iotest.ErrReader(boom), 8); !errors.Is(err, boom) {
		t.Errorf("ReadAllSized of a failing reader: %v, want %v", err, boom)
	}
	if _, err := ReadAllSized(io.MultiReader(strings.NewReader("12345678"), iotest.ErrReader(boom)), 8); !errors.Is(err, boom) {
		t.Errorf("ReadAllSized of a reader failing after the announced size: %v, want %v", err, boom)
	}
}
