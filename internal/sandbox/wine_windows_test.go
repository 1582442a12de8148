//go:build wine

package sandbox_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	// Under Wine, os.Remove needs Go's older way of deleting (wineshim).
	"github.com/vox-lang/vox-mcp/internal/sandbox"
	_ "github.com/vox-lang/vox-mcp/internal/wineshim"
)

// Wine runs the low-integrity token's process but enforces no integrity
// level: the self-test must see its write outside the private folder
// succeed and fail closed naming that protection, and Run must then
// refuse every command with a SetupError, running nothing.
func TestSelfTestFailsClosedUnderWine(t *testing.T) {
	rep := sandbox.SelfTest(context.Background())
	t.Logf("report: %s; warnings %q", rep, rep.Warnings)
	err := rep.Problem()
	if err == nil {
		t.Fatalf("the self-test passed under Wine, which enforces no integrity level: %s", rep)
	}
	if want := `protection "` + sandbox.ProtectWriteOutside + `" did not hold`; !strings.Contains(err.Error(), want) {
		t.Fatalf("problem %q, want it to name %s", err, want)
	}
	spec := skillSpec(t, `echo ran> ran.txt`)
	res, err := sandbox.Run(context.Background(), spec)
	var se *sandbox.SetupError
	if !errors.As(err, &se) || se.Step != "self-test" || !strings.Contains(se.Error(), sandbox.ProtectWriteOutside) {
		t.Fatalf("Run: result %+v, err %v; want a SetupError at the self-test naming %q", res, err, sandbox.ProtectWriteOutside)
	}
}
