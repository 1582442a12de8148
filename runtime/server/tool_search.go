package server

import (
	"context"
	"encoding/json"

	"github.com/vox-lang/vox-mcp/runtime/registry"
)

func init() { registerHandler("vox_tool_search", toolSearch) }

// toolSearchHit is one result of vox_tool_search (spec 35-tool-results).
type toolSearchHit struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Source      string          `json:"vox_source"`
	Score       float64         `json:"score"`
}

// toolSearch ranks every tool the server knows — catalog, workspace
// (advertised or not) and skill macro tools — with BM25 (spec 40-skills §3).
func toolSearch(_ context.Context, s *Server, args Args) (any, error) {
	set := s.currentTools()
	limit := int(args.Int("limit", 10))
	source := args.String("source")
	results := []toolSearchHit{}
	for _, hit := range set.searchIndex().Search(args.String("query"), 0) {
		e := set.sorted[hit.Doc]
		if source != "" && e.source != source {
			continue
		}
		schema := e.tool.RawInputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(registry.DefaultInputSchema)
		}
		results = append(results, toolSearchHit{
			Name:        e.tool.Name,
			Description: e.tool.Description,
			InputSchema: schema,
			Source:      e.source,
			Score:       hit.Score,
		})
		if len(results) == limit {
			break
		}
	}
	return map[string]any{"results": results}, nil
}
