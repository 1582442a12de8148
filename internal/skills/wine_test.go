//go:build wine

package skills_test

// Under Wine, os.Remove needs Go's older way of deleting (wineshim).
import _ "github.com/vox-lang/vox-mcp/internal/wineshim"
