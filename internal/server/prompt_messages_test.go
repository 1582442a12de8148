package server

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

const messagesVox = `@mcp.prompt("A prompt with an embedded resource")
fn test_prompt_with_embedded_resource(resourceUri: str) to list[Message] {
    [
        {role: "user", content: content.resource(resourceUri, "Embedded resource content for testing.", "text/plain")},
        {role: "user", content: "Please process the embedded resource above."},
    ]
}

@mcp.prompt("A prompt with an image")
fn test_prompt_with_image() to list[Message] {
    [
        {role: "user", content: content.image(fs.read_base64("assets/pixel.png")?, "image/png")},
        {role: "assistant", content: content.text("Please analyze the image above.")},
    ]
}

@mcp.prompt("A prompt whose message has a bad role")
fn bad_role() to list[Message] {
    [{role: "system", content: "x"}]
}
`

// A workspace prompt declared to list[Message] answers prompts/get with
// its messages, each role and content block as written
// (docs/vox-language.md, Prompts) — the shapes of the conformance prompts
// test_prompt_with_embedded_resource and test_prompt_with_image; a message
// of another shape is -32603 naming it.
func TestWorkspacePromptMessages(t *testing.T) {
	pixel := []byte("\x89PNG\r\n\x1a\n-not-really-a-png")
	s := workspaceServer(t, Options{}, map[string]string{"tools/p.vox": messagesVox, "assets/pixel.png": string(pixel)})
	n := connect(t, s)
	ctx := context.Background()
	get := func(name string, args map[string]string) (*mcp.GetPromptResult, error) {
		req := mcp.GetPromptRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		return n.c.GetPrompt(ctx, req)
	}
	res, err := get("test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://example-resource"})
	if err != nil || len(res.Messages) != 2 {
		t.Fatalf("embedded: %+v, %v", res, err)
	}
	emb, ok := res.Messages[0].Content.(mcp.EmbeddedResource)
	if !ok || res.Messages[0].Role != mcp.RoleUser {
		t.Fatalf("message 0: %#v", res.Messages[0])
	}
	if r, ok := emb.Resource.(mcp.TextResourceContents); !ok || r.URI != "test://example-resource" || r.MIMEType != "text/plain" || r.Text != "Embedded resource content for testing." {
		t.Errorf("embedded resource: %#v", emb.Resource)
	}
	if tc, ok := res.Messages[1].Content.(mcp.TextContent); !ok || tc.Text != "Please process the embedded resource above." {
		t.Errorf("message 1: %#v", res.Messages[1])
	}

	res, err = get("test_prompt_with_image", nil)
	if err != nil || len(res.Messages) != 2 {
		t.Fatalf("image: %+v, %v", res, err)
	}
	if img, ok := res.Messages[0].Content.(mcp.ImageContent); !ok || img.MIMEType != "image/png" || img.Data != base64.StdEncoding.EncodeToString(pixel) {
		t.Errorf("image message: %#v", res.Messages[0])
	}
	if res.Messages[1].Role != mcp.RoleAssistant {
		t.Errorf("message 1's role: %q", res.Messages[1].Role)
	}

	if _, err := get("bad_role", nil); err == nil || !strings.Contains(err.Error(), `message 0 needs the role "user" or "assistant"`) {
		t.Errorf("a bad role: %v", err)
	}
}
