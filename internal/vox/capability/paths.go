package capability

import (
	"path"
	"strings"

	"github.com/vox-lang/vox-mcp/internal/vox/eval"
)

// ---- path ----
//
// Paths are slash-separated text. basename, dirname and join are Go's
// path functions; parent, file_name, stem and extension follow the
// reference, which takes them from Rust's std::path (a trailing slash is
// ignored; extension has no dot; a name that starts with its only dot,
// such as .bashrc, has no extension).

func pathJoin(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = strArg(th, "path", "join", a)
	}
	return joined(th, parts)
}

func pathJoinMany(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	if args[0].Kind() != eval.KList {
		th.Failf("path.join_many needs a list of str, got %s", kindName(args[0]))
	}
	elems := args[0].List().Elems()
	parts := make([]string, len(elems))
	for i, e := range elems {
		parts[i] = strArg(th, "path", "join_many", e)
	}
	return joined(th, parts)
}

func joined(th *eval.Thread, parts []string) eval.Value {
	var n int64
	for _, p := range parts {
		n += int64(len(p)) + 1
	}
	th.CheckSize(n)
	th.Charge(n)
	return eval.Str(path.Join(parts...))
}

func pathBase(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	return eval.Str(path.Base(strArg(th, "path", "basename", args[0])))
}

func pathDir(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	p := strArg(th, "path", "dirname", args[0])
	th.Charge(int64(len(p)))
	return eval.Str(path.Dir(p))
}

func pathExt(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	return eval.Str(path.Ext(strArg(th, "path", "ext", args[0])))
}

// trimSlashes drops trailing slashes, keeping a lone "/".
func trimSlashes(p string) string {
	t := strings.TrimRight(p, "/")
	if t == "" && p != "" {
		return "/"
	}
	return t
}

// fileName is the last element of p, "" when p has none (it is "", "/",
// or ends in ".." or ".").
func fileName(p string) string {
	p = trimSlashes(p)
	name := p[strings.LastIndexByte(p, '/')+1:]
	if name == "." || name == ".." {
		return ""
	}
	return name
}

// splitExt splits a file name at its last dot, unless the dot is the
// first character.
func splitExt(name string) (stem, ext string, ok bool) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 {
		return name, "", false
	}
	return name[:i], name[i+1:], true
}

func pathExtension(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	_, ext, _ := splitExt(fileName(strArg(th, "path", "extension", args[0])))
	return eval.Str(ext)
}

func pathFileName(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	if name := fileName(strArg(th, "path", "file_name", args[0])); name != "" {
		return eval.Some(eval.Str(name))
	}
	return eval.None
}

func pathStem(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	name := fileName(strArg(th, "path", "stem", args[0]))
	if name == "" {
		return eval.None
	}
	stem, _, _ := splitExt(name)
	return eval.Some(eval.Str(stem))
}

func pathParent(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	p := trimSlashes(strArg(th, "path", "parent", args[0]))
	if p == "" || p == "/" {
		return eval.None
	}
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return eval.Some(eval.Str(""))
	}
	parent := strings.TrimRight(p[:i], "/")
	if parent == "" {
		parent = "/"
	}
	return eval.Some(eval.Str(parent))
}

func pathIsAbsolute(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	return eval.Bool(strings.HasPrefix(strArg(th, "path", "is_absolute", args[0]), "/"))
}
