package eval

import (
	"fmt"

	"github.com/vox-lang/vox-mcp/internal/vox/content"
	"github.com/vox-lang/vox-mcp/internal/vox/syntax"
)

// Content values (docs/tool-results.md §2): a block of MCP content is a
// map in the block's own JSON shape — {"type": "image", "data": ...,
// "mimeType": ...} — so json.stringify, display and comparison need
// nothing new, and a tool declared `to Content` or `to list[Content]`
// sends its blocks as they are written.

// ContentValue returns the map of block b, its members in the order MCP
// writes them; optional members left empty are left out.
func ContentValue(b *content.Block) Value {
	o := &Object{}
	o.Set("type", Str(b.Type))
	switch b.Type {
	case content.Text:
		o.Set("text", Str(b.Text))
	case content.Image, content.Audio:
		o.Set("data", Str(b.Data))
		o.Set("mimeType", Str(b.MIMEType))
	case content.Resource:
		r := &Object{}
		r.Set("uri", Str(b.URI))
		r.Set("mimeType", Str(b.MIMEType))
		if content.IsText(b.MIMEType) {
			r.Set("text", Str(b.Text))
		} else {
			r.Set("blob", Str(b.Blob))
		}
		o.Set("resource", NewObject(r))
	case content.ResourceLink:
		o.Set("uri", Str(b.URI))
		o.Set("name", Str(b.Name))
		if b.Description != "" {
			o.Set("description", Str(b.Description))
		}
		if b.MIMEType != "" {
			o.Set("mimeType", Str(b.MIMEType))
		}
	}
	return NewObject(o)
}

// contentBlocks reads the result of a tool declared to return Content
// (one block) or list[Content] (any number) into checked blocks; a value
// that is not one fails the call at pos (the declared result type),
// naming the element and what is wrong.
func (th *Thread) contentBlocks(pos syntax.Pos, v Value, list bool) []content.Block {
	if !list {
		return []content.Block{th.contentBlock(pos, "the result", v)}
	}
	elems := th.resultList(pos, v, "a list of content (content.text, content.image, ...)")
	out := make([]content.Block, len(elems))
	for i, e := range elems {
		out[i] = th.contentBlock(pos, fmt.Sprintf("the result's element %d", i), e)
	}
	return out
}

// contentBlock reads one content map.
func (th *Thread) contentBlock(pos syntax.Pos, what string, v Value) content.Block {
	if v.k != KObject {
		th.Fail(pos, "%s must be content (content.text, content.image, ...), got %s", what, v.typeName())
	}
	o := v.Object()
	str := func(o *Object, key string, need bool) string {
		f, ok := o.Get(key)
		if !ok || f.k == KNull || f.k == KNone {
			if need {
				th.Fail(pos, "%s is not content: it has no %q", what, key)
			}
			return ""
		}
		if f.k != KStr {
			th.Fail(pos, "%s is not content: its %q is %s, not a str", what, key, f.typeName())
		}
		return f.Str()
	}
	b := content.Block{Type: str(o, "type", true)}
	switch b.Type {
	case content.Text:
		b.Text = str(o, "text", true)
	case content.Image, content.Audio:
		b.Data, b.MIMEType = str(o, "data", true), str(o, "mimeType", true)
	case content.Resource:
		r, ok := o.Get("resource")
		if !ok || r.k != KObject {
			th.Fail(pos, "%s is not content: an embedded resource needs a map \"resource\"", what)
		}
		ro := r.Object()
		b.URI, b.MIMEType = str(ro, "uri", true), str(ro, "mimeType", true)
		if content.IsText(b.MIMEType) {
			b.Text = str(ro, "text", true)
		} else {
			b.Blob = str(ro, "blob", true)
		}
	case content.ResourceLink:
		b.URI, b.Name = str(o, "uri", true), str(o, "name", true)
		b.Description, b.MIMEType = str(o, "description", false), str(o, "mimeType", false)
	}
	if err := b.Check(); err != nil {
		th.Fail(pos, "%s is not valid content: %v", what, err)
	}
	th.charge(int64(len(b.Data) + len(b.Blob))) // the base64 check scans it
	return b
}

// promptMessages reads the result of a prompt declared to list[Message]
// (docs/vox-language.md, Prompts): a list of maps (or records) {role,
// content} whose role is "user" or "assistant" and whose content is a str
// (a text block) or content (content.text, content.image, ...). A value
// that is not one fails the call at pos, the declared result type,
// naming the message and what is wrong.
func (th *Thread) promptMessages(pos syntax.Pos, v Value) []content.Message {
	for v.k == KOk || v.k == KSome {
		v = v.Inner()
	}
	elems := th.resultList(pos, v, "a list of messages {role: \"user\" or \"assistant\", content: str or content}")
	out := make([]content.Message, len(elems))
	for i, e := range elems {
		what := fmt.Sprintf("message %d", i)
		if e.k != KObject {
			th.Fail(pos, "%s must be a map {role, content}, got %s", what, e.typeName())
		}
		o := e.Object()
		for _, k := range o.keys {
			if k != "role" && k != "content" {
				th.Fail(pos, "%s has the key %q: a message has only role and content", what, k)
			}
		}
		role, ok := o.Get("role")
		if !ok || role.k != KStr || role.Str() != content.RoleUser && role.Str() != content.RoleAssistant {
			th.Fail(pos, "%s needs the role \"user\" or \"assistant\"", what)
		}
		c, ok := o.Get("content")
		switch {
		case !ok:
			th.Fail(pos, "%s has no content: give a str or content (content.text, content.image, ...)", what)
		case c.k == KStr:
			out[i] = content.Message{Role: role.Str(), Block: content.Block{Type: content.Text, Text: c.Str()}}
		default:
			out[i] = content.Message{Role: role.Str(), Block: th.contentBlock(pos, what+"'s content", c)}
		}
	}
	return out
}

// resultList returns the elements of a result that must be a list (or a
// tuple) of what; anything else fails the call at pos.
func (th *Thread) resultList(pos syntax.Pos, v Value, what string) []Value {
	switch v.k {
	case KList:
		return v.List().elems
	case KTuple:
		return v.Tuple()
	}
	th.Fail(pos, "the result must be %s, got %s", what, v.typeName())
	return nil
}
