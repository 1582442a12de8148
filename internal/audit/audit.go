// Package audit writes vox-mcp's audit trail (docs/security.md, "Audit
// trail"): one JSON line per tool call, resource read, prompt get, skill
// activation and skill run, appended to a file that only its owner may
// read, rotated by size.
//
// A line says who did what and how it ended, never with what: the
// arguments of an action are reduced to a SHA-256 digest of their
// canonical JSON, the session id to a keyed hash, and an outcome to a
// code, so that no argument value, token or message text that could
// echo one reaches the file. The server builds Records; this package
// hashes, encodes and writes them, so that what a line may hold is
// decided in one place.
package audit

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/vox-lang/vox-mcp/internal/session"
)

// Actions, the "action" of a line.
const (
	ActionToolCall      = "tools/call"
	ActionResourceRead  = "resources/read"
	ActionPromptGet     = "prompts/get"
	ActionSkillActivate = "skill/activate"
	ActionSkillRun      = "skill/run"
)

// Outcomes, the "outcome" of a line.
const (
	OutcomeOK      = "ok"
	OutcomeError   = "error"
	OutcomeRefused = "refused"
)

// Defaults of Options.
const (
	DefaultMaxSize = 10 << 20 // bytes of one file before it is rotated
	DefaultKeep    = 5        // rotated files kept: FILE.1 .. FILE.5
)

// Record is one action as the server saw it. Session and Args are raw:
// Write hashes them and never writes them as they are.
type Record struct {
	Start     time.Time
	Principal string
	Session   string // the MCP session id; "" when the action had none
	Action    string
	What      string // a name the server defines: tool, prompt, skill, resource URI or URI template
	// Args are the action's arguments as JSON (nil: none, as a resource
	// read has); only their digest is written.
	Args     json.RawMessage
	Outcome  string
	Reason   string // a code (refusal step, error kind); never message text
	ExitCode *int   // skill/run: the command's exit status
}

// line is the JSON of one line, in its documented field order.
type line struct {
	Time       string `json:"time"`
	Principal  string `json:"principal"`
	Session    string `json:"session,omitempty"`
	Action     string `json:"action"`
	What       string `json:"what"`
	ArgsSHA256 string `json:"args_sha256,omitempty"`
	Outcome    string `json:"outcome"`
	Reason     string `json:"reason,omitempty"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// Options configure Open.
type Options struct {
	// MaxSize is the size in bytes past which the file is rotated before
	// the next line; 0 means DefaultMaxSize.
	MaxSize int64
	// Keep is how many rotated files are kept (FILE.1 newest); 0 means
	// DefaultKeep.
	Keep int
	// SessionKey keys the session hash; nil means a random key of this
	// process. Servers of a fleet pass a key derived from their shared
	// session key (SessionKeyFrom), so that one session hashes alike on
	// every instance.
	SessionKey []byte
	// Logger hears write and rotation failures (which never fail the
	// action); nil discards them.
	Logger *slog.Logger
}

// Log is an open audit file. Its methods are safe for concurrent use; a
// nil *Log writes nothing, so that callers test one pointer when
// auditing is off.
type Log struct {
	path    string
	maxSize int64
	keep    int
	key     []byte
	log     *slog.Logger

	mu   sync.Mutex
	f    *os.File
	size int64
	now  func() time.Time // tests fix the clock
}

// Open opens path for appending, creating it with mode 0600. A symbolic
// link at path is refused, never followed (openFile), as is anything but
// a regular file; an existing file readable by others is narrowed to
// 0600.
func Open(path string, opts Options) (*Log, error) {
	l := &Log{path: path, maxSize: opts.MaxSize, keep: opts.Keep, key: opts.SessionKey, log: opts.Logger, now: time.Now}
	if l.maxSize <= 0 {
		l.maxSize = DefaultMaxSize
	}
	if l.keep <= 0 {
		l.keep = DefaultKeep
	}
	if l.key == nil {
		l.key = make([]byte, 32)
		if _, err := rand.Read(l.key); err != nil {
			return nil, fmt.Errorf("audit: no random key for the session hash: %w", err)
		}
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	l.f, l.size = f, size
	return l, nil
}

// SessionKeyFrom derives the session-hash key from a secret the servers
// of a fleet share (their first session signing key): a separate key, so
// that the audit file never holds anything computed with the signing key
// itself.
func SessionKeyFrom(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("vox-mcp audit session hash v1"))
	return m.Sum(nil)
}

// openFile opens path for appending without following a symbolic link in
// its last component, and checks that it is a regular file.
func openFile(path string) (*os.File, int64, error) {
	// The Lstat refuses a link where the system has no O_NOFOLLOW; the
	// flag closes the race between the two where it has.
	if isLink(path) {
		return nil, 0, errLink(path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		if isLink(path) {
			return nil, 0, errLink(path)
		}
		return nil, 0, fmt.Errorf("--audit %s: %w: name a file in a folder you can write", path, err)
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("--audit %s: is not a regular file (%s); name a file", path, info.Mode().Type())
	}
	if err == nil && info.Mode().Perm()&0o077 != 0 {
		err = f.Chmod(0o600)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Size(), nil
}

func errLink(path string) error {
	return fmt.Errorf("--audit %s: is a symbolic link; refused, so that the trail cannot be redirected: name the file itself", path)
}

// isLink reports whether path names a symbolic link.
func isLink(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode()&os.ModeSymlink != 0
}

// Write appends the line of r. A failure is logged and never returned:
// the audit trail does not fail the action it records.
func (l *Log) Write(r Record) {
	if l == nil {
		return
	}
	end := l.now()
	ln := line{
		Time:       end.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Principal:  r.Principal,
		Action:     r.Action,
		What:       r.What,
		Outcome:    r.Outcome,
		Reason:     r.Reason,
		ExitCode:   r.ExitCode,
		DurationMS: end.Sub(r.Start).Milliseconds(),
	}
	if r.Session != "" {
		ln.Session = l.sessionHash(r.Session)
	}
	if r.Args != nil {
		ln.ArgsSHA256 = ArgsDigest(r.Args)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ln); err != nil {
		l.log.Error("audit: a line could not be encoded", "action", r.Action, "err", err)
		return
	}
	l.append(buf.Bytes())
}

// sessionHash is the first 16 hex digits of HMAC-SHA-256 of the session id
// under the log's key: the same session reads the same on every line, and
// the file cannot be used to find or confirm a session id, which over
// HTTP is a credential (docs/security.md, "Audit trail").
func (l *Log) sessionHash(id string) string {
	return session.Hash(l.key, id)
}

// append writes one line, rotating first when it would pass maxSize.
// Lines are written whole under mu, and a rotation happens under mu
// between two lines, so no line is lost or split by one.
func (l *Log) append(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return // closed
	}
	if l.size > 0 && l.size+int64(len(p)) > l.maxSize {
		l.rotate()
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	if err != nil {
		l.log.Error("audit: a line could not be written", "file", l.path, "err", err)
	}
}

// rotate shifts FILE.k to FILE.k+1 (the last one is dropped), FILE to
// FILE.1, and opens a new FILE. Renames replace symbolic links planted at
// FILE.k, never follow them. When the new file cannot be opened, the
// lines keep going to the renamed one and the next line tries again.
func (l *Log) rotate() {
	for k := l.keep - 1; k >= 1; k-- {
		from := l.path + "." + strconv.Itoa(k)
		if err := os.Rename(from, l.path+"."+strconv.Itoa(k+1)); err != nil && !os.IsNotExist(err) {
			l.log.Error("audit: a rotated file could not be renamed", "file", from, "err", err)
		}
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		l.log.Error("audit: the file could not be rotated; it keeps growing", "file", l.path, "err", err)
		return
	}
	f, size, err := openFile(l.path)
	if err != nil {
		l.log.Error("audit: no new file after the rotation; writing on to "+l.path+".1", "err", err)
		return
	}
	l.f.Close()
	l.f, l.size = f, size
}

// Close closes the file; later Writes write nothing.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// ArgsDigest is the hex SHA-256 of the canonical JSON of args: object
// keys sorted, no insignificant white space, strings escaped as
// encoding/json does without HTML escaping, numbers as the client wrote
// them. Absent or null arguments digest as {}, as the server treats them.
// Arguments that are not JSON digest as their bytes.
func ArgsDigest(args json.RawMessage) string {
	sum := sha256.Sum256(Canonical(args))
	return hex.EncodeToString(sum[:])
}

// Canonical is the canonical JSON of ArgsDigest.
func Canonical(args json.RawMessage) []byte {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return trimmed
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return trimmed
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
