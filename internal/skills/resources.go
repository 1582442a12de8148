package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"
)

// Resource URIs and names (SEP-2640, docs/skills.md §5).
const (
	IndexURI    = "skill://index.json"
	IndexName   = "skill-index"
	IndexSchema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
)

// ErrUnknownResource is the error of reading a URI that is not one of the
// snapshot's resources. The server answers it with the protocol's
// resource-not-found error.
var ErrUnknownResource = errors.New("unknown resource")

// Resource is one skill resource the server registers.
type Resource struct {
	URI         string
	Name        string
	Description string
	MIMEType    string
	// SkillID is the skill the file belongs to, "" for the index.
	SkillID string
	// Size is the file's size in bytes.
	Size int64

	skill *Installed
	rel   string // file path relative to the skill folder
}

// Contents is a read resource: Text for text types holding valid UTF-8,
// otherwise Blob (raw bytes; the MCP layer encodes them in base64).
type Contents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	IsBlob   bool
}

// mimeTypes is the fixed extension table of docs/skills.md §5: types must
// not depend on the machine's MIME database.
var mimeTypes = map[string]string{
	".md":   "text/markdown",
	".txt":  "text/plain",
	".json": "application/json",
	".yaml": "application/yaml",
	".yml":  "application/yaml",
	".py":   "text/x-python",
	".sh":   "text/x-shellscript",
	".js":   "text/javascript",
	".html": "text/html",
	".csv":  "text/csv",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".pdf":  "application/pdf",
}

// MIMEType is the type of a skill file, from its extension (case
// insensitive); unknown extensions are application/octet-stream.
func MIMEType(name string) string {
	if t, ok := mimeTypes[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	return "application/octet-stream"
}

// isTextType says whether a type is served as text (when the bytes are
// valid UTF-8). SVG is XML text, so it counts.
func isTextType(mime string) bool {
	switch mime {
	case "application/json", "application/yaml", "image/svg+xml":
		return true
	}
	return strings.HasPrefix(mime, "text/")
}

// SkillURI is the URI of file rel of skill id. Each path segment is
// percent-encoded, so a file name holding spaces or '%' still makes a valid
// URI, and a '/' only ever separates segments.
func SkillURI(id, rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "skill://" + id + "/" + strings.Join(segs, "/")
}

type indexEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Type        string `json:"type"`
	URL         string `json:"url"`
}

type indexDoc struct {
	Schema string       `json:"$schema"`
	Skills []indexEntry `json:"skills"`
}

func (s *Snapshot) buildResources() {
	doc := indexDoc{Schema: IndexSchema, Skills: make([]indexEntry, 0, len(s.skills))}
	for _, in := range s.skills {
		doc.Skills = append(doc.Skills, indexEntry{Name: in.Name, Description: in.Description,
			Type: "skill-md", URL: SkillURI(in.ID, "SKILL.md")})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(doc) // strings and slices only: cannot fail
	s.indexJSON = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))

	s.resources = []Resource{{URI: IndexURI, Name: IndexName, MIMEType: "application/json",
		Description: "Agent Skills discovery index of the installed skills", Size: int64(len(s.indexJSON))}}
	for _, in := range s.skills {
		s.resources = append(s.resources, Resource{URI: SkillURI(in.ID, "SKILL.md"), Name: in.Name,
			Description: in.Description, MIMEType: "text/markdown", SkillID: in.ID,
			Size: int64(len(in.Source)), skill: in, rel: "SKILL.md"})
		for _, f := range in.Files {
			if f.Path == "SKILL.md" {
				continue
			}
			s.resources = append(s.resources, Resource{URI: SkillURI(in.ID, f.Path), Name: in.ID + "/" + f.Path,
				Description: fmt.Sprintf("File %s of skill %s", f.Path, in.Name), MIMEType: MIMEType(f.Path),
				SkillID: in.ID, Size: f.Size, skill: in, rel: f.Path})
		}
	}
	s.resByURI = make(map[string]int, len(s.resources))
	for i, r := range s.resources {
		s.resByURI[r.URI] = i
	}
}

// Resources are the resources to register: skill://index.json, then per
// skill (by id) its SKILL.md and its other files (by path).
func (s *Snapshot) Resources() []Resource { return append([]Resource(nil), s.resources...) }

// IndexJSON is the body of skill://index.json.
func (s *Snapshot) IndexJSON() []byte { return append([]byte(nil), s.indexJSON...) }

// ReadResource reads one of the snapshot's resources. A URI that is not
// exactly a registered one — traversal attempts included — is
// ErrUnknownResource and never reaches the file system. SKILL.md is served
// as loaded (so it agrees with the registry); other files are read when
// asked for, and a file over 1 MiB is ErrFileTooLarge.
func (s *Snapshot) ReadResource(uri string) (Contents, error) {
	i, ok := s.resByURI[uri]
	if !ok {
		return Contents{}, fmt.Errorf("%w %s", ErrUnknownResource, uri)
	}
	r := s.resources[i]
	var data []byte
	switch {
	case r.skill == nil:
		data = s.indexJSON
	case r.rel == "SKILL.md":
		data = r.skill.Source
	default:
		var err error
		if data, err = r.skill.ReadFile(r.rel); err != nil {
			return Contents{}, err
		}
	}
	c := Contents{URI: r.URI, MIMEType: r.MIMEType}
	if isTextType(r.MIMEType) && utf8.Valid(data) {
		c.Text = string(data)
	} else {
		c.Blob, c.IsBlob = data, true
	}
	return c, nil
}
