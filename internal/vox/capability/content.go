package capability

import (
	"github.com/vox-lang/vox-mcp/internal/vox/content"
	"github.com/vox-lang/vox-mcp/internal/vox/eval"
)

// The content namespace builds MCP content blocks (docs/tool-results.md
// §2). Each block is checked here, so a bad base64 or MIME type fails at
// the call that builds it, with its position; a tool's result is checked
// again, for blocks written as maps by hand.

func contentText(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	return contentValue(th, "text", &content.Block{Type: content.Text, Text: strArg(th, "content", "text", args[0])})
}

func contentMedia(kind string) func(*eval.Thread, *Config, []eval.Value) eval.Value {
	return func(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
		return contentValue(th, kind, &content.Block{Type: kind,
			Data: strArg(th, "content", kind, args[0]), MIMEType: strArg(th, "content", kind, args[1])})
	}
}

func contentResource(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	b := &content.Block{Type: content.Resource, URI: strArg(th, "content", "resource", args[0]), MIMEType: "text/plain"}
	body := strArg(th, "content", "resource", args[1])
	if len(args) > 2 {
		b.MIMEType = strArg(th, "content", "resource", args[2])
	}
	if content.IsText(b.MIMEType) {
		b.Text = body
	} else {
		b.Blob = body
	}
	return contentValue(th, "resource", b)
}

func contentResourceLink(th *eval.Thread, _ *Config, args []eval.Value) eval.Value {
	b := &content.Block{Type: content.ResourceLink, URI: strArg(th, "content", "resource_link", args[0]),
		Name: strArg(th, "content", "resource_link", args[1])}
	if len(args) > 2 {
		b.Description = strArg(th, "content", "resource_link", args[2])
	}
	if len(args) > 3 {
		b.MIMEType = strArg(th, "content", "resource_link", args[3])
	}
	return contentValue(th, "resource_link", b)
}

// contentValue checks b and returns its map, or fails the call naming
// the function.
func contentValue(th *eval.Thread, fn string, b *content.Block) eval.Value {
	if err := b.Check(); err != nil {
		th.Failf("content.%s: %v", fn, err)
	}
	th.Work(int64(len(b.Data) + len(b.Blob))) // the base64 check scans it
	return eval.ContentValue(b)
}
