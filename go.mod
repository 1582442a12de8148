module github.com/vox-lang/vox-mcp

go 1.26
