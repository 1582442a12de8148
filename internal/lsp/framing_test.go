package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

func TestReadMessages(t *testing.T) {
	in := "Content-Length: 2\r\n\r\n{}" +
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:  7 \r\n\r\n[1,2,3]" +
		"Content-Length: 4\n\nnull" // bare line feeds, as lenient peers send
	r := newReader(strings.NewReader(in))
	for _, want := range []string{"{}", "[1,2,3]", "null"} {
		body, err := r.read()
		if err != nil || string(body) != want {
			t.Fatalf("read %q, %v; want %q", body, err, want)
		}
	}
	if _, err := r.read(); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
}

func TestReadMessageRejects(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"hostile length", "Content-Length: 99999999999\r\n\r\n{}", "message 1: Content-Length 99999999999 is over the limit of 16777216 bytes (16 MiB)"},
		{"length over int64", "Content-Length: 99999999999999999999999\r\n\r\n", `Content-Length "99999999999999999999999" is not a number of bytes`},
		{"negative length", "Content-Length: -1\r\n\r\n", `Content-Length "-1" is not a number of bytes`},
		{"no length", "Content-Type: x\r\n\r\n{}", "no Content-Length header"},
		{"no colon", "Content-Length 2\r\n\r\n{}", `header line "Content-Length 2" has no colon`},
		{"endless header line", "Content-Length: 2" + strings.Repeat(" ", 10<<20), "a header line is longer than 1024 bytes"},
		{"endless headers", strings.Repeat("X-A: b\r\n", 1<<20), "more than 16 header lines"},
		{"ends in headers", "Content-Length: 2\r\n", "the stream ended inside the headers"},
		{"short body", "Content-Length: 10\r\n\r\n{}", "the stream ended after part of a 10-byte body"},
		{"second message", "Content-Length: 2\r\n\r\n{}Content-Length: x\r\n\r\n", "message 2: "},
	} {
		r := newReader(strings.NewReader(tc.in))
		var err error
		for err == nil {
			_, err = r.read()
		}
		var fe *FrameError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a FrameError with %q", tc.name, err, tc.want)
		}
	}
}

// TestHostileLengthAllocatesNothing: the body buffer is made only once
// its length is within the limit.
func TestHostileLengthAllocatesNothing(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		r := newReader(strings.NewReader("Content-Length: 4000000000\r\n\r\n{}"))
		if _, err := r.read(); err == nil {
			t.Fatal("a 4 GB message was accepted")
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Fatalf("100 hostile headers allocated %d bytes", grew)
	}
}

func TestWriteMessage(t *testing.T) {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	if err := writeMessage(w, []byte(`{"a":"é"}`)); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "Content-Length: 10\r\n\r\n{\"a\":\"é\"}" {
		t.Fatalf("%q", got)
	}
}
