//go:build unix

package capability_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/vox"
)

// TestWalkIsBounded: a walk over a large tree counts a step per entry and
// its paths against the value-size limit as it goes, so it fails at a
// limit; a symbolic link that loops back is not followed, so the walk
// ends.
func TestWalkIsBounded(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := range 50 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.txt", j)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Symlink("..", filepath.Join(root, "d00", "up")); err != nil {
		t.Fatal(err)
	}
	m := vox.Compile("walk.vox", []byte("fn all() { fs.walk(\".\").unwrap().len() }\nfn md() { fs.glob(\"**/f0*.txt\").unwrap().len() }\n"))
	call := func(fn string, lim vox.Limits) (string, error) {
		res, err := m.Call(context.Background(), fn, nil, &vox.Env{Root: root, Limits: lim})
		return string(res.JSON), err
	}
	if out, err := call("all", vox.DefaultLimits()); err != nil || out != "2000" {
		t.Fatalf("walk: %s %v", out, err)
	}
	if out, err := call("md", vox.DefaultLimits()); err != nil || out != "400" {
		t.Fatalf("glob: %s %v", out, err)
	}
	for _, tc := range []struct {
		lim vox.Limits
		key string
	}{
		{vox.Limits{Steps: 1000}, "steps"},
		{vox.Limits{MaxValueBytes: 10000}, "max_value_bytes"},
	} {
		_, err := call("all", tc.lim)
		var e *vox.Error
		if !errors.As(err, &e) || e.Limit != tc.key {
			t.Errorf("%+v: want the %s limit, got %v", tc.lim, tc.key, err)
		}
	}
}
