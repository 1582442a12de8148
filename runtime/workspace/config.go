package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"

	"github.com/vox-lang/vox-mcp/contracts"
	"github.com/vox-lang/vox-mcp/internal/contractdoc"
	"github.com/vox-lang/vox-mcp/internal/safefs"
	"github.com/vox-lang/vox-mcp/internal/schemajson"
)

// Where a repository keeps its workspace contracts (docs/contracts.md §3–§4).
const (
	ConfigPath   = "contracts/mcp/workspace-mcp-surface.v1.yaml"
	FixturesPath = "contracts/mcp/workspace-tool-fixtures.v1.json"
)

// DefaultScanGlobs are used when the repository has no scan config.
var DefaultScanGlobs = []string{"**/*.vox"}

// DefaultExcludes are always excluded; a config's exclude_globs add to them.
var DefaultExcludes = []string{"**/node_modules/**", "**/target/**", "**/.vox/**", "**/.git/**", "**/testdata/**"}

// Glob is a scan or exclude glob with its position in the config (zero
// for defaults).
type Glob struct {
	Pattern string
	Pos     contractdoc.Pos
}

// Limits are the interpreter limits the config sets; nil fields keep the
// interpreter's defaults (docs/vox-language.md, Limits).
type Limits struct {
	Steps          *int64
	MaxDepth       *int64
	TimeoutMS      *int64
	MaxOutputBytes *int64
	MaxValueBytes  *int64
	WaitMS         *int64 // each wait of elicit() and sample() for the client
}

// Config is a repository's scan config.
type Config struct {
	// Missing is set when the repository has no config file: the defaults
	// apply and the loader logs a notice.
	Missing      bool
	ScanGlobs    []Glob
	ExcludeGlobs []Glob // the defaults followed by the configured ones
	Limits       Limits
	EnvAllow     []string
	// WriteGlobs are the workspace paths fs.write may write; none unless
	// the config lists them.
	WriteGlobs []Glob
	// SHA256 is the hex digest of the config file ("" when Missing); the
	// snapshot records it to recognise the repository it describes.
	SHA256 string
}

// DefaultConfig is the config of a repository without a config file.
func DefaultConfig() *Config {
	c := &Config{Missing: true}
	for _, g := range DefaultScanGlobs {
		c.ScanGlobs = append(c.ScanGlobs, Glob{Pattern: g})
	}
	c.ExcludeGlobs = defaultExcludeGlobs()
	return c
}

func defaultExcludeGlobs() []Glob {
	out := make([]Glob, len(DefaultExcludes))
	for i, g := range DefaultExcludes {
		out[i] = Glob{Pattern: g}
	}
	return out
}

// LoadConfig reads the scan config of the repository at root. A missing
// file gives DefaultConfig (Missing set); an unreadable or invalid one is an
// error (contractdoc.Errors with positions for an invalid one), never a
// silent fallback.
func LoadConfig(root string) (*Config, error) {
	dir, err := safefs.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	return loadConfig(dir)
}

// loadConfig is LoadConfig in the open root dir: the file is read beneath
// it, never blocking on a FIFO and never through a symlink leading out.
func loadConfig(dir *safefs.Root) (*Config, error) {
	src, err := readContract(dir, ConfigPath, contractdoc.ContractLimits.MaxBytes)
	if err != nil {
		return nil, err
	}
	if src == nil {
		return DefaultConfig(), nil
	}
	cfg, errs := ParseConfig(ConfigPath, src)
	if len(errs) > 0 {
		return nil, errs
	}
	return cfg, nil
}

var configSchema = sync.OnceValue(func() *contractdoc.Schema {
	return contractdoc.MustCompileSchema("workspace-mcp-surface.v1.schema.json", contracts.WorkspaceSurfaceSchema)
})

// ParseConfig validates scan config source; path is the repo-relative
// path used in errors.
func ParseConfig(path string, src []byte) (*Config, contractdoc.Errors) {
	doc, pes := contractdoc.ParseYAML(src, "a mapping with scan_globs")
	errs := contractdoc.At(path, pes)
	if doc == nil {
		return nil, errs
	}
	errs = append(errs, contractdoc.At(path, configSchema().Validate(doc, nil))...)
	if len(errs) > 0 {
		return nil, errs.Dedupe()
	}
	sum := sha256.Sum256(src)
	cfg := &Config{SHA256: hex.EncodeToString(sum[:]), ExcludeGlobs: defaultExcludeGlobs()}
	root := doc.Root
	globs := func(key string) []Glob {
		v, _ := root.Get(key)
		var out []Glob
		for i, it := range v.Items {
			p := doc.Pos("/" + key + "/" + strconv.Itoa(i))
			out = append(out, Glob{Pattern: it.Text, Pos: p})
		}
		return out
	}
	cfg.ScanGlobs = globs("scan_globs")
	cfg.ExcludeGlobs = append(cfg.ExcludeGlobs, globs("exclude_globs")...)
	cfg.WriteGlobs = globs("write_globs")
	for _, g := range append(append(slicesClone(cfg.ScanGlobs), cfg.ExcludeGlobs...), cfg.WriteGlobs...) {
		if msg := checkGlob(g.Pattern); msg != "" {
			errs = append(errs, contractdoc.Error{Path: path, Line: g.Pos.Line, Col: g.Pos.Col, Message: msg})
		}
	}
	if v, ok := root.Get("env_allow"); ok {
		for _, it := range v.Items {
			cfg.EnvAllow = append(cfg.EnvAllow, it.Text)
		}
	}
	if lim, ok := root.Get("limits"); ok {
		for _, m := range lim.Members {
			n, err := strconv.ParseInt(m.Value.Text, 10, 64)
			if err != nil || m.Value.Kind != schemajson.Number {
				p := doc.Pos("/limits/" + m.Key)
				errs = append(errs, contractdoc.Error{Path: path, Line: p.Line, Col: p.Col, Message: "limits." + m.Key + ": want an integer that fits 64 bits"})
				continue
			}
			switch m.Key {
			case "steps":
				cfg.Limits.Steps = &n
			case "max_depth":
				cfg.Limits.MaxDepth = &n
			case "timeout_ms":
				cfg.Limits.TimeoutMS = &n
			case "max_output_bytes":
				cfg.Limits.MaxOutputBytes = &n
			case "max_value_bytes":
				cfg.Limits.MaxValueBytes = &n
			case "wait_ms":
				cfg.Limits.WaitMS = &n
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs.Dedupe()
	}
	return cfg, nil
}

func slicesClone(g []Glob) []Glob { return append([]Glob(nil), g...) }

// WritePatterns are the patterns of WriteGlobs: the workspace paths
// fs.write may write (docs/vox-language.md, Capabilities).
func (c *Config) WritePatterns() []string {
	var out []string
	for _, g := range c.WriteGlobs {
		out = append(out, g.Pattern)
	}
	return out
}
