// Package capability provides the namespaces through which Vox code reaches
// outside the interpreter (docs/vox-language.md, Capabilities): fs (confined
// to the workspace root, read-only but for fs.write to the granted write
// globs), env (the granted names), json, path and time. What is granted
// is Powers, which the person running the interpreter decides
// (docs/security.md, "Consent: a repository grants itself nothing"). Running processes
// and network access do not exist: every such call fails with "capability
// denied: <ns>.<method>".
//
// fs opens the workspace through os.Root, which resolves every path inside
// the root and refuses a path that leaves it, through ".." or through a
// symbolic link; absolute paths and paths that escape lexically are
// refused before any file is touched. fs.write goes through
// internal/safefs, which follows no link at all (fswrite.go).
package capability

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/vox-lang/vox-mcp/internal/vox/eval"
	"github.com/vox-lang/vox-mcp/internal/vox/libsig"
)

// Config is what the namespaces may reach.
type Config struct {
	Root   string  // the workspace root for fs.*
	Powers *Powers // what env.get may read and fs.write write; nil: nothing
}

// Namespace is one capability namespace and its functions, bound from the
// library contract (library.gen.go). A namespace without functions exists
// only to deny every call with "capability denied: <ns>.<method>".
type Namespace struct {
	Name  string
	Funcs []*Func

	lib   *libsig.Namespace // its row: notes, denials, members
	index map[string]*Func
}

// Lib returns the namespace's row of the library contract.
func (n *Namespace) Lib() *libsig.Namespace { return n.lib }

// Notes say what a reader must know about the namespace as a whole.
func (n *Namespace) Notes() string { return n.lib.Notes }

// DeniedByName reports whether name is a function of the reference that
// the namespace denies by design.
func (n *Namespace) DeniedByName(name string) bool {
	return slices.ContainsFunc(n.lib.Denied, func(d libsig.Denial) bool { return d.Name == name })
}

// DeniesOthers reports whether calling a function the namespace lacks is
// "capability denied" rather than undefined (fs.write): the checker warns
// of it instead of suggesting a name.
func (n *Namespace) DeniesOthers() bool { return n.lib.DeniesOthers }

// Func is one capability function: name, signature and implementation.
// The implementation gets arguments whose number fits the signature.
type Func struct {
	Name string
	Sig  eval.Signature

	fn       func(th *eval.Thread, c *Config, args []eval.Value) eval.Value
	min, max int
	// mutates: the function changes something outside the call (Mutating).
	mutates bool
}

// The implementations the library contract names that are made by a
// constructor.
var (
	base64EncodeStd = base64Encode(false)
	base64DecodeStd = base64Decode(false)
	base64EncodeURL = base64Encode(true)
	base64DecodeURL = base64Decode(true)
	contentImage    = contentMedia("image")
	contentAudio    = contentMedia("audio")
	logDebug        = logAt(slog.LevelDebug)
	logInfo         = logAt(slog.LevelInfo)
	logWarn         = logAt(slog.LevelWarn)
	logError        = logAt(slog.LevelError)
)

var names []string

func init() {
	byName := map[string]*Namespace{}
	for _, ns := range table {
		names = append(names, ns.Name)
		byName[ns.Name] = ns
		ns.index = map[string]*Func{}
		for _, f := range ns.Funcs {
			f.min, f.max = f.Sig.Arity()
			ns.index[f.Name] = f
		}
	}
	// A namespace std.X (std.json) is X as reached through std, with the
	// functions it has of its own: the others are X's.
	for _, ns := range table {
		if base, ok := strings.CutPrefix(ns.Name, "std."); ok && byName[base] != nil {
			for _, f := range byName[base].Funcs {
				if ns.index[f.Name] == nil {
					ns.index[f.Name] = f
				}
			}
		}
	}
}

// StdMember is the namespace std.name denotes: std.X when the library
// has such a namespace (std.json), else X; "" when there is no X.
func StdMember(name string) string {
	if slices.Contains(names, "std."+name) {
		return "std." + name
	}
	if slices.Contains(names, name) && name != "std" {
		return name
	}
	return ""
}

// Names returns the names of the namespaces, for the resolver's universe.
func Names() []string { return names }

// Denies reports whether every call of the namespace fails with
// "capability denied".
func (ns *Namespace) Denies() bool { return ns.lib.Denies() }

// Namespaces returns the namespaces that provide functions or members,
// configured for a call.
func Namespaces(cfg Config) map[string]eval.Namespace {
	c := &cfg
	out := make(map[string]eval.Namespace, len(table))
	for _, ns := range table {
		if !ns.Denies() {
			out[ns.Name] = bound{ns, c}
		}
	}
	return out
}

// bound is a namespace with the configuration of a call.
type bound struct {
	ns  *Namespace
	cfg *Config
}

// Field is a member of std: the namespace of that name, unless it is std.
func (b bound) Field(th *eval.Thread, name string) (eval.Value, bool) {
	if !b.ns.lib.Members {
		return eval.Value{}, false
	}
	if b.ns.DeniedByName(name) {
		th.Failf("capability denied: %s.%s", b.ns.Name, name)
	}
	if ns := StdMember(name); ns != "" {
		return eval.NamespaceValue(ns), true
	}
	return eval.Value{}, false
}

func (b bound) Call(th *eval.Thread, method string, args []eval.Value, names []string) (eval.Value, bool) {
	f := b.ns.index[method]
	if f == nil {
		if b.ns.lib.DeniesOthers || b.ns.DeniedByName(method) {
			return eval.Value{}, false // eval reports: capability denied
		}
		th.Failf("undefined: %s.%s", b.ns.Name, method)
	}
	for _, name := range names {
		if name != "" {
			th.Failf("%s.%s: unknown argument %s", b.ns.Name, method, name)
		}
	}
	switch n := len(args); {
	case f.min == f.max && n != f.min:
		th.Failf("%s.%s takes %d argument(s), got %d", b.ns.Name, method, f.min, n)
	case n < f.min:
		th.Failf("%s.%s takes at least %d argument(s), got %d", b.ns.Name, method, f.min, n)
	case n > f.max:
		th.Failf("%s.%s takes at most %d argument(s), got %d", b.ns.Name, method, f.max, n)
	}
	return f.fn(th, b.cfg, args), true
}

func strArg(th *eval.Thread, ns, method string, v eval.Value) string {
	if v.Kind() != eval.KStr {
		th.Failf("%s.%s needs a str, got %s", ns, method, kindName(v))
	}
	return v.Str()
}

func kindName(v eval.Value) string {
	switch v.Kind() {
	case eval.KInt:
		return "int"
	case eval.KFloat:
		return "float"
	case eval.KBool:
		return "bool"
	case eval.KNull:
		return "Unit"
	case eval.KList:
		return "list"
	case eval.KObject:
		return "map"
	}
	return "a value that is not a str"
}

// ---- fs ----

// fsOpen confines the path argument of fs.<method> and opens the
// workspace root.
func fsOpen(th *eval.Thread, c *Config, method string, args []eval.Value) (root *os.Root, rel, p string) {
	p = strArg(th, "fs", method, args[0])
	rel = confine(th, method, p)
	root, err := os.OpenRoot(c.Root)
	if err != nil {
		th.Failf("fs.%s: cannot open the workspace root: %v", method, err)
	}
	return root, rel, p
}

func fsExists(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	root, rel, _ := fsOpen(th, c, "exists", args)
	defer root.Close()
	_, err := root.Stat(rel)
	if err != nil && isEscape(err) {
		th.Failf("capability denied: fs.exists outside the workspace")
	}
	return eval.Bool(err == nil)
}

func fsRead(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	root, rel, p := fsOpen(th, c, "read", args)
	defer root.Close()
	r := read(th, root, rel, p)
	if r.Kind() != eval.KOk {
		return r
	}
	text := r.Inner().Str()
	if norm := normalizeText(text); len(norm) != len(text) {
		th.Charge(int64(len(norm)))
		return eval.OkVal(eval.Str(norm))
	}
	return r
}

// normalizeText is what fs.read makes of a file's text, as the
// reference does: a leading byte order mark removed, CRLF and lone CR
// line ends made LF. The result is never longer than s.
func normalizeText(s string) string {
	s = strings.TrimPrefix(s, "\uFEFF")
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

func fsReadBytes(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	root, rel, p := fsOpen(th, c, "read_bytes", args)
	defer root.Close()
	return read(th, root, rel, p)
}

// fsReadBase64 reads any regular file, text or not, as base64. The file
// may be at most 3/4 of max_value_bytes, so that its base64 fits.
func fsReadBase64(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	root, rel, p := fsOpen(th, c, "read_base64", args)
	defer root.Close()
	data, errVal := readRaw(th, root, rel, p, "read_base64", 3)
	if data == nil {
		return errVal
	}
	n := int64(base64.StdEncoding.EncodedLen(len(data)))
	th.CheckSize(n)
	th.Charge(n)
	return eval.OkVal(eval.Str(base64.StdEncoding.EncodeToString(data)))
}

func fsListDir(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	if len(args) == 0 {
		args = []eval.Value{eval.Str(".")}
	}
	root, rel, p := fsOpen(th, c, "list_dir", args)
	defer root.Close()
	return listDir(th, root, rel, p)
}

// fsIsKind implements is_file and is_dir: Stat follows symbolic links,
// and os.Root refuses one that leaves the workspace.
func fsIsKind(method string, want func(fs.FileMode) bool) func(*eval.Thread, *Config, []eval.Value) eval.Value {
	return func(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
		root, rel, _ := fsOpen(th, c, method, args)
		defer root.Close()
		info, err := root.Stat(rel)
		if err != nil && isEscape(err) {
			th.Failf("capability denied: fs.%s outside the workspace", method)
		}
		return eval.Bool(err == nil && want(info.Mode()))
	}
}

var (
	fsIsFile = fsIsKind("is_file", fs.FileMode.IsRegular)
	fsIsDir  = fsIsKind("is_dir", fs.FileMode.IsDir)
)

// confine refuses absolute paths and paths that leave the root lexically,
// and returns the cleaned relative path.
//
// Vox paths are separated by "/" on every system, and a backslash is
// refused on every system (docs/security.md, "Path rules"): read as a
// separator it would name data/x.csv on Linux where a file may be called
// data\x.csv, and a tool would mean different files on different systems.
func confine(th *eval.Thread, method, p string) string {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || (len(p) > 1 && p[1] == ':') || strings.ContainsRune(p, 0) {
		th.Failf("capability denied: fs.%s outside the workspace", method)
	}
	if strings.ContainsRune(p, '\\') {
		th.Failf("fs.%s: %s: a backslash is not allowed in a path: Vox paths are separated by / on every system; write %s", method, strconv.Quote(p), strconv.Quote(strings.ReplaceAll(p, `\`, "/")))
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		th.Failf("capability denied: fs.%s outside the workspace", method)
	}
	return clean
}

// isEscape reports whether os.Root refused a path for leaving the root
// (through a symbolic link, typically).
func isEscape(err error) bool {
	return errEscapes != nil && errors.Is(err, errEscapes)
}

// errEscapes is os.Root's error for a path that leaves the root. The os
// package does not export it, so it is taken once from os.Root itself:
// errors.Is then recognises it without comparing error texts.
var errEscapes = func() error {
	r, err := os.OpenRoot(os.TempDir())
	if err != nil {
		return nil
	}
	defer r.Close()
	_, err = r.Stat("../escape")
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}()

func errText(p string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return p + ": no such file or directory"
	}
	return p + ": " + err.Error()
}

// openFlags open whatever a path names without waiting and without side
// effects on the call: O_NONBLOCK makes opening a FIFO that has no writer
// return at once (instead of blocking the worker for good), O_NOCTTY
// keeps a terminal from becoming the server's controlling terminal. What
// was opened is then checked with fstat on the descriptor itself, so a
// file swapped between a check and the open cannot slip through.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// kindOf names what a file that is neither regular nor a directory is.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

func read(th *eval.Thread, root *os.Root, rel, p string) eval.Value {
	data, errVal := readRaw(th, root, rel, p, "read", 4)
	if data == nil {
		return errVal
	}
	if !utf8.Valid(data) {
		return eval.ErrVal(eval.Str(p + ": not valid UTF-8 (fs.read_base64 reads any file as base64)"))
	}
	return eval.OkVal(eval.Str(string(data)))
}

// readRaw reads a regular file whose size, times 4/quarters, fits the
// value-size limit (quarters is 4 for text, 3 for base64, which is 4/3
// of the bytes); it returns nil data and the Err value when the file
// cannot be read.
func readRaw(th *eval.Thread, root *os.Root, rel, p, method string, quarters int64) ([]byte, eval.Value) {
	// Recorded before it opens: a file missing now may appear later.
	th.NoteRead(filepath.ToSlash(rel))
	f, err := root.OpenFile(rel, openFlags, 0)
	if err != nil {
		if isEscape(err) {
			th.Failf("capability denied: fs.%s outside the workspace", method)
		}
		return nil, eval.ErrVal(eval.Str(errText(p, err)))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, eval.ErrVal(eval.Str(errText(p, err)))
	}
	if info.IsDir() {
		return nil, eval.ErrVal(eval.Str(p + ": is a directory"))
	}
	if !info.Mode().IsRegular() {
		return nil, eval.ErrVal(eval.Str(p + ": is " + kindOf(info.Mode()) + "; fs." + method + " reads regular files only"))
	}
	// A file over the value limit is an Err the tool can match (skip a
	// huge file, read another), not the end of the call: the limit guards
	// memory, and nothing is held yet.
	limit := th.MaxValueBytes()
	if limit > 0 && info.Size()*4/quarters > limit {
		return nil, overValueLimit(p, method, info.Size(), limit)
	}
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit*quarters/4+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, eval.ErrVal(eval.Str(errText(p, err)))
	}
	if limit > 0 && int64(len(data))*4/quarters > limit {
		return nil, overValueLimit(p, method, int64(len(data)), limit) // it grew while read
	}
	th.Charge(int64(len(data)))
	if data == nil {
		data = []byte{}
	}
	return data, eval.Value{}
}

// overValueLimit is the Err of a read whose value would be over
// max_value_bytes.
func overValueLimit(p, method string, size, limit int64) eval.Value {
	return eval.ErrVal(eval.Str(fmt.Sprintf("%s: %d bytes, over the limit of %d bytes for one value (max_value_bytes); fs.%s reads files up to it", p, size, limit, method)))
}

func listDir(th *eval.Thread, root *os.Root, rel, p string) eval.Value {
	f, err := root.OpenFile(rel, openFlags, 0)
	if err != nil {
		if isEscape(err) {
			th.Failf("capability denied: fs.list_dir outside the workspace")
		}
		return eval.ErrVal(eval.Str(errText(p, err)))
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && !info.IsDir() {
		if !info.Mode().IsRegular() {
			return eval.ErrVal(eval.Str(p + ": is " + kindOf(info.Mode()) + "; fs.list_dir lists directories only"))
		}
		return eval.ErrVal(eval.Str(p + ": not a directory"))
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return eval.ErrVal(eval.Str(p + ": not a directory"))
	}
	names := make([]string, len(entries))
	var size int64
	for i, e := range entries {
		names[i] = e.Name()
		if e.IsDir() {
			names[i] += "/"
		}
		size += 16 + int64(len(names[i]))
	}
	th.CheckSize(size)
	slices.Sort(names)
	elems := make([]eval.Value, len(names))
	for i, name := range names {
		elems[i] = eval.Str(name)
	}
	return eval.OkVal(eval.NewList(elems))
}

// ---- env ----

func envGet(th *eval.Thread, c *Config, args []eval.Value) eval.Value {
	name := strArg(th, "env", "get", args[0])
	if !slices.Contains(c.Powers.env(), name) {
		c.Powers.withheldEnv(th, name)
		return eval.None
	}
	v, ok := os.LookupEnv(name)
	if !ok {
		return eval.None
	}
	return eval.Some(eval.Str(v))
}

// ---- time ----

func timeNowUnix(*eval.Thread, *Config, []eval.Value) eval.Value {
	return eval.Int(time.Now().Unix())
}

func timeNowMS(*eval.Thread, *Config, []eval.Value) eval.Value {
	return eval.Int(time.Now().UnixMilli())
}

// ---- log ----

func logAt(level slog.Level) func(*eval.Thread, *Config, []eval.Value) eval.Value {
	return func(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
		th.Log(level, args)
		return eval.Value{}
	}
}
