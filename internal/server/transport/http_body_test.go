package transport

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"
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

// TestReadBody: a body over the bound is answered 413, one whose read
// deadline passed 408 naming the deadline, another read failure 400;
// each closes the connection. A body within the bound is read whole.
func TestReadBody(t *testing.T) {
	timeout := timeoutErr{}
	for _, c := range []struct {
		name   string
		body   io.Reader
		size   int64
		status int
		text   string
	}{
		{"over the bound", strings.NewReader(strings.Repeat("x", MaxRequestBody+1)), -1, http.StatusRequestEntityTooLarge, "request body over 64 MiB"},
		{"deadline", iotest.ErrReader(timeout), -1, http.StatusRequestTimeout, "request body not received within 30s (VAR)"},
		{"broken", iotest.ErrReader(errors.New("boom")), -1, http.StatusBadRequest, "reading the request body: boom"},
		{"whole", strings.NewReader(`{"id":1}`), 8, http.StatusOK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", c.body)
			r.ContentLength = c.size
			w := httptest.NewRecorder()
			body, err := ReadBody(w, r, 30*time.Second, "VAR")
			if c.status == http.StatusOK {
				if err != nil || string(body) != `{"id":1}` || w.Body.Len() != 0 {
					t.Fatalf("ReadBody = %q, %v (answered %q); want the body and no answer", body, err, w.Body.String())
				}
				return
			}
			if err == nil || w.Code != c.status || strings.TrimSpace(w.Body.String()) != c.text || w.Header().Get("Connection") != "close" {
				t.Errorf("ReadBody: err %v, answered %d %q (Connection %q); want %d %q and Connection: close", err, w.Code, w.Body.String(), w.Header().Get("Connection"), c.status, c.text)
			}
		})
	}
	if !IsTimeout(fmt.Errorf("reading: %w", os.ErrDeadlineExceeded)) || IsTimeout(errors.New("boom")) {
		t.Error("IsTimeout: want true for a passed deadline only")
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string { return "i/o timeout" }
func (timeoutErr) Timeout() bool { return true }
