package workspace

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/vox-lang/vox-mcp/contracts"
	"github.com/vox-lang/vox-mcp/internal/contractdoc"
	"github.com/vox-lang/vox-mcp/internal/safefs"
	"github.com/vox-lang/vox-mcp/internal/schemajson"
)

// Fixture is one entry of the fixtures file: a tool call (Tool set) or a
// resource read (Resource set).
type Fixture struct {
	Tool        string
	Args        json.RawMessage // the call's arguments, "{}" by default
	Expected    json.RawMessage // nil when absent
	ExpectError string          // "" when absent

	Resource     string
	ExpectedBody *string // nil when absent

	Pos contractdoc.Pos // of the fixture object, for problems
}

// Fixtures is the parsed fixtures file.
type Fixtures struct {
	Path  string
	Items []Fixture
}

var fixturesSchema = sync.OnceValue(func() *contractdoc.Schema {
	return contractdoc.MustCompileSchema("workspace-tool-fixtures.v1.schema.json", contracts.WorkspaceFixturesSchema)
})

// LoadFixtures reads the fixtures of the repository at root; it returns
// nil, nil when the repository has none.
func LoadFixtures(root string) (*Fixtures, error) {
	dir, err := safefs.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	src, err := readContract(dir, FixturesPath, contractdoc.ContractLimits.MaxBytes)
	if err != nil || src == nil {
		return nil, err
	}
	fx, errs := ParseFixtures(FixturesPath, src)
	if len(errs) > 0 {
		return nil, errs
	}
	return fx, nil
}

// ParseFixtures validates fixtures source; path is used in errors.
func ParseFixtures(path string, src []byte) (*Fixtures, contractdoc.Errors) {
	doc, pes := contractdoc.ParseJSON(src)
	errs := contractdoc.At(path, pes)
	if doc == nil {
		return nil, errs
	}
	errs = append(errs, contractdoc.At(path, fixturesSchema().Validate(doc, nil))...)
	if len(errs) > 0 {
		return nil, errs.Dedupe()
	}
	fx := &Fixtures{Path: path}
	list, _ := doc.Root.Get("fixtures")
	for i, it := range list.Items {
		ptr := "/fixtures/" + strconv.Itoa(i)
		f := Fixture{Pos: doc.Pos(ptr)}
		if v, ok := it.Get("tool"); ok {
			f.Tool = v.Text
			f.Args = json.RawMessage("{}")
			if a, ok := it.Get("args"); ok {
				f.Args = schemajson.Compact(a)
			}
			if e, ok := it.Get("expected"); ok {
				f.Expected = schemajson.Compact(e)
			}
			if e, ok := it.Get("expect_error"); ok {
				f.ExpectError = e.Text
				if f.Expected != nil {
					p := doc.KeyPos(ptr + "/expect_error")
					errs = append(errs, contractdoc.Error{Path: path, Line: p.Line, Col: p.Col,
						Message: "fixtures[" + strconv.Itoa(i) + "]: expected and expect_error exclude each other: a call either succeeds with a value or fails"})
				}
			}
		} else {
			r, _ := it.Get("resource")
			f.Resource = r.Text
			if b, ok := it.Get("expected_body"); ok {
				body := b.Text
				f.ExpectedBody = &body
			}
		}
		fx.Items = append(fx.Items, f)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return fx, nil
}
