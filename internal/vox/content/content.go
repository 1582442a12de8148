// Package content is the MCP content model of Vox tools and resources
// (docs/tool-results.md §2): the blocks a tool may return — text, an
// image, audio, an embedded resource, a resource link — with their checks
// (base64, MIME types), and the rule that decides whether a resource body
// is text or a base64 blob. It knows nothing of the interpreter: Vox
// values of content are maps in the block's own JSON shape, which the
// interpreter reads into a Block and checks here.
package content

import (
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"strings"
)

// The block types, as MCP spells them.
const (
	Text         = "text"
	Image        = "image"
	Audio        = "audio"
	Resource     = "resource"
	ResourceLink = "resource_link"
)

// Block is one content block of a tool result. Which fields are set
// depends on Type: Text for text; Data and MIMEType for image and audio;
// URI, MIMEType and Text or Blob for resource; URI, Name and optionally
// Description and MIMEType for resource_link.
type Block struct {
	Type              string
	Text              string
	Data              string // base64, image and audio
	Blob              string // base64, a resource whose MIME type is not text
	MIMEType          string
	URI               string
	Name, Description string
}

// The roles of a prompt message, as MCP spells them.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one message of a prompt (docs/vox-language.md, Prompts): a
// role and one content block.
type Message struct {
	Role  string
	Block Block
}

// Check reports the first thing wrong with b, as a message that names
// what is allowed; it never allocates in proportion to the base64 data.
func (b *Block) Check() error {
	switch b.Type {
	case Text:
		return nil
	case Image, Audio:
		if err := CheckMIME(b.MIMEType, b.Type); err != nil {
			return err
		}
		return CheckBase64(b.Data)
	case Resource:
		if b.URI == "" {
			return fmt.Errorf("an embedded resource needs a URI")
		}
		if err := CheckMIME(b.MIMEType, ""); err != nil {
			return err
		}
		if !IsText(b.MIMEType) {
			if err := CheckBase64(b.Blob); err != nil {
				return fmt.Errorf("the MIME type %q is not text, so the body must be base64 (fs.read_base64 reads a file so): %v", b.MIMEType, err)
			}
		}
		return nil
	case ResourceLink:
		if b.URI == "" {
			return fmt.Errorf("a resource link needs a URI")
		}
		if b.Name == "" {
			return fmt.Errorf("a resource link needs a name")
		}
		if b.MIMEType != "" {
			return CheckMIME(b.MIMEType, "")
		}
		return nil
	}
	return fmt.Errorf("unknown content type %q: want one of text, image, audio, resource, resource_link", b.Type)
}

// CheckMIME checks that m is a media type "type/subtype" (parameters
// allowed, RFC 2045) and, when major is not "", that its type is major
// ("image" for an image).
func CheckMIME(m, major string) error {
	t, _, err := mime.ParseMediaType(m)
	slash := strings.IndexByte(t, '/')
	if err != nil || slash <= 0 || slash == len(t)-1 {
		return fmt.Errorf("%q is not a MIME type: want type/subtype, such as %s", m, example(major))
	}
	if major != "" && t[:slash] != major {
		return fmt.Errorf("%q is not an %s MIME type: want %s/..., such as %s", m, major, major, example(major))
	}
	return nil
}

func example(major string) string {
	switch major {
	case Image:
		return `"image/png"`
	case Audio:
		return `"audio/wav"`
	}
	return `"text/plain" or "application/octet-stream"`
}

// CheckBase64 checks that s is base64 in the standard alphabet with its
// padding (RFC 4648 §4), as MCP carries binary data: no line breaks or
// other white space, no URL-safe letters. It decodes in small pieces, so
// a large image costs no memory.
func CheckBase64(s string) error {
	if i := strings.IndexAny(s, "\r\n \t"); i >= 0 {
		return fmt.Errorf("not base64: white space at byte %d (MCP wants standard base64 on one line)", i)
	}
	if len(s)%4 != 0 {
		return fmt.Errorf("not base64: its length %d is not a multiple of 4 (standard base64 is padded with =)", len(s))
	}
	_, err := io.Copy(io.Discard, base64.NewDecoder(base64.StdEncoding.Strict(), strings.NewReader(s)))
	if err != nil {
		return fmt.Errorf("not base64: %v (standard alphabet A-Z a-z 0-9 + /, padded)", err)
	}
	return nil
}

// IsText reports whether a body of MIME type m is text — and so carried
// as text, in a resource's contents or an embedded resource — rather than
// a base64 blob: text/*, and the textual application types (JSON, XML,
// JavaScript, YAML, TOML, SQL, and any +json or +xml type). Every other
// type (images, audio, PDF, application/octet-stream) is a blob.
func IsText(m string) bool {
	t, _, err := mime.ParseMediaType(m)
	if err != nil {
		return false
	}
	if strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml") {
		return true
	}
	switch t {
	case "application/json", "application/xml", "application/javascript", "application/yaml",
		"application/x-yaml", "application/toml", "application/sql":
		return true
	}
	return false
}
