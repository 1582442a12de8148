package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/vox-lang/vox-mcp/internal/vox/capability"
	"github.com/vox-lang/vox-mcp/internal/vox/content"
	"github.com/vox-lang/vox-mcp/internal/vox/schema"
	"github.com/vox-lang/vox-mcp/runtime/toolcall"
	"github.com/vox-lang/vox-mcp/runtime/workspace"
)

// callTool runs a workspace tool (docs/federation.md §3): in the
// interpreter with the request's context and the configured limits. A
// failure — argument errors, Err results, runtime errors, limits, a source
// that no longer compiles — is an error result with its text; success
// has the shape the declared result type decides (docs/tool-results.md
// §2): content blocks for Content, structuredContent that is the value
// and its JSON as text for an object-shaped type, and otherwise one text
// content (the string itself, or compact JSON) and structuredContent
// {"result": <json>}.
//
// elicit() and sample() ask the calling client (docs/tool-results.md §6):
// on its session before protocol 2026-07-28; from 2026-07-28 the call
// ends with an input_required result and runs again, replaying the
// answers of the earlier rounds (toolcall.Rounds).
func (w *workspaceSource) callTool(ctx context.Context, surface *workspace.Surface, t *workspace.Tool, req mcp.CallToolRequest, base *slog.Logger) (*mcp.CallToolResult, error) {
	args := req.Params.RawArguments
	if len(args) == 0 && req.Params.Arguments != nil {
		b, err := json.Marshal(req.Params.Arguments)
		if err != nil {
			return errorResult("arguments must be a JSON object"), nil
		}
		args = b
	}
	ctx, err := w.withRounds(ctx, t.Name, args, req.Params.MultiRoundTripParams)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	c, _ := toolcall.ClientFrom(ctx)
	// What the tool prints also goes to the calling session (logging.go).
	log := toolcall.ClientLogger(ctx, base, t.Name)
	// progress() reaches the caller when it sent a progress token.
	var progress func(done, total float64, message string)
	if c.ProgressToken != nil {
		progress = func(done, total float64, message string) { toolcall.SendProgress(ctx, done, total, message) }
	}
	// The interpreter's run is a span of its own under the request's
	// when traces are on (tracing.go).
	sctx, span := childSpan(ctx, "vox.interpreter.call", trace.SpanKindInternal, func() []attribute.KeyValue {
		return []attribute.KeyValue{attrToolName.String(t.Name)}
	})
	res, err := surface.CallToolReporting(sctx, t, args, log, progress, toolcall.Asker{})
	endSpan(span, err)
	if err != nil {
		var input *toolcall.InputRequired
		if errors.As(err, &input) {
			if b, berr := input.Builder(); berr == nil {
				return b.ToolResult(), nil
			}
		}
		return errorResult(workspace.ErrorText(err)), nil
	}
	switch res.Shape {
	case schema.OneContent, schema.ContentList:
		return &mcp.CallToolResult{Content: contentBlocks(res.Blocks)}, nil
	case schema.Structured:
		return &mcp.CallToolResult{
			Content:           []mcp.Content{mcp.NewTextContent(res.Text)},
			StructuredContent: json.RawMessage(res.JSON),
		}, nil
	}
	// {"result": <json>} written directly: the same bytes as encoding a
	// map holding the raw JSON, without the map.
	structured := make([]byte, 0, len(`{"result":}`)+len(res.JSON))
	structured = append(append(append(structured, `{"result":`...), res.JSON...), '}')
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(res.Text)},
		StructuredContent: json.RawMessage(structured),
	}, nil
}

// readResource reads a workspace resource by calling its function; uri is
// the URI read and vars the variables it gives a template resource (nil
// for a plain one). A failure becomes mcp-go's -32603 with the error text
// (docs/federation.md §3, the wire-error table).
func (w *workspaceSource) readResource(ctx context.Context, surface *workspace.Surface, r *workspace.Resource, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
	ctx, span := childSpan(ctx, "vox.interpreter.read", trace.SpanKindInternal, func() []attribute.KeyValue {
		return []attribute.KeyValue{attrResourceURI.String(uri)}
	})
	text, err := surface.ReadResourceNoting(ctx, r, vars, toolcall.ClientLogger(ctx, w.s.log.With("resource", uri), uri),
		func(files []string) { w.reads.record(uri, files) })
	endSpan(span, err)
	if err != nil {
		return nil, errors.New(workspace.ErrorText(err))
	}
	// A MIME type that is not text makes the body a blob: the function
	// returned base64, which the interpreter checked.
	if !content.IsText(r.MIMEType) {
		return []mcp.ResourceContents{mcp.BlobResourceContents{URI: uri, MIMEType: r.MIMEType, Blob: text}}, nil
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: r.MIMEType, Text: text}}, nil
}

// withRounds gives ctx, under protocol 2026-07-28, the journal of the
// call's earlier rounds (toolcall.Rounds) for elicit and sample, named
// by what is called (a tool, or "prompt <name>") and its arguments.
func (w *workspaceSource) withRounds(ctx context.Context, name string, args []byte, p mcp.MultiRoundTripParams) (context.Context, error) {
	if !toolcall.Modern(ctx) {
		return ctx, nil
	}
	rounds, err := toolcall.NewRounds(w.inputKey(), name, args, p)
	if err != nil {
		return ctx, err
	}
	c, _ := toolcall.ClientFrom(ctx)
	c.Rounds = rounds
	ctx = toolcall.WithClient(ctx, c)
	// fs.write writes nothing the earlier rounds wrote.
	return capability.WithReplaying(ctx, rounds.Replaying), nil
}

// contentBlocks converts checked content blocks to mcp-go's.
func contentBlocks(blocks []content.Block) []mcp.Content {
	out := make([]mcp.Content, len(blocks))
	for i, b := range blocks {
		switch b.Type {
		case content.Text:
			out[i] = mcp.NewTextContent(b.Text)
		case content.Image:
			out[i] = mcp.NewImageContent(b.Data, b.MIMEType)
		case content.Audio:
			out[i] = mcp.NewAudioContent(b.Data, b.MIMEType)
		case content.Resource:
			if content.IsText(b.MIMEType) {
				out[i] = mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: b.URI, MIMEType: b.MIMEType, Text: b.Text})
			} else {
				out[i] = mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: b.URI, MIMEType: b.MIMEType, Blob: b.Blob})
			}
		case content.ResourceLink:
			out[i] = mcp.NewResourceLink(b.URI, b.Name, b.Description, b.MIMEType)
		}
	}
	return out
}
