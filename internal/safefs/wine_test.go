//go:build wine

package safefs_test

// Under Wine, os.Remove needs Go's older way of deleting (wineshim).
import _ "github.com/vox-lang/vox-mcp/internal/wineshim"
