package sandbox_test

// What a command can learn of the host from the mount table
// (docs/sandbox.md, "Linux").

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vox-lang/vox-mcp/internal/sandbox"
)

// readMounts is the command that prints every mount table a command can
// read, then uses the skill folder: a listing and a file of a subfolder.
const readMounts = "cat /proc/self/mountinfo /proc/self/mounts /proc/1/mountinfo /proc/self/mountstats; " +
	"echo ---; ls skill; ls skill/scripts; ./skill/scripts/hello.sh; touch skill/new 2>&1 || echo read-only"

// TestMountinfoHidesSkillPath: the skill folder shows in the mount table
// as an overlay with no host path, and works as before: listed, its files
// read and run, read-only.
func TestMountinfoHidesSkillPath(t *testing.T) {
	skill := newSkill(t)
	res := mustRunIn(t, sandbox.Run, skill, readMounts)
	mounts, after, _ := strings.Cut(res.Stdout, "---\n")
	if strings.Contains(res.Stdout, skill) || strings.Contains(res.Stdout, filepath.Base(filepath.Dir(skill))) {
		t.Errorf("the skill folder's host path %s shows inside:\n%s", skill, mounts)
	}
	if !strings.Contains(mounts, " / /tmp/skill ro,nosuid,nodev") || !strings.Contains(mounts, " - overlay vox-skill ro,lowerdir=/proc/self/fd/") {
		t.Errorf("want /tmp/skill an overlay whose root is /:\n%s", mounts)
	}
	if want := "SKILL.md\nscripts\nhello.sh\nhello from test-skill\n"; !strings.HasPrefix(after, want) || !strings.HasSuffix(after, "read-only\n") {
		t.Errorf("the skill folder: got %q, want %q then the refused touch", after, want)
	}
	if _, err := os.Stat(filepath.Join(skill, "new")); err == nil {
		t.Error("the command wrote into the skill folder")
	}
}

// TestSkillBoundWithoutOverlay: where overlayfs cannot be mounted the
// folder is bound, the run works, the host path shows (which is what the
// test above would catch), and the self-test warns.
func TestSkillBoundWithoutOverlay(t *testing.T) {
	skill := newSkill(t)
	res, err := sandbox.Config{}.RunFailingAt(context.Background(), specFor(t, skill, readMounts), sandbox.StepSkillOverlay)
	if err != nil {
		t.Fatal(err)
	}
	mounts, after, _ := strings.Cut(res.Stdout, "---\n")
	if !strings.Contains(mounts, skill+" /tmp/skill ro,nosuid,nodev") {
		t.Errorf("want the bind's root, the host path, in mountinfo:\n%s", mounts)
	}
	if !strings.HasPrefix(after, "SKILL.md\nscripts\nhello.sh\nhello from test-skill\n") || !strings.HasSuffix(after, "read-only\n") {
		t.Errorf("the bound skill folder: %q", after)
	}

	rep := sandbox.Config{}.SelfTest(context.Background())
	if rep.Err != nil || !rep.SkillPathHidden || strings.Contains(strings.Join(rep.Warnings, "\n"), "mountinfo") {
		t.Errorf("self-test: %v, hidden %v, warnings %q", rep.Err, rep.SkillPathHidden, rep.Warnings)
	}
	rep = sandbox.Config{}.SelfTestFailingAt(context.Background(), sandbox.StepSkillOverlay)
	want := "the skill folder is bound, not mounted as an overlay (overlayfs: operation not permitted; overlayfs in a user namespace needs Linux 5.11): " +
		"a command can read the folder's host path in /proc/self/mountinfo"
	if rep.Err != nil || rep.SkillPathHidden || !strings.Contains(strings.Join(rep.Warnings, "\n"), want) {
		t.Errorf("self-test without overlayfs: %v, hidden %v, warnings %q; want the warning %q", rep.Err, rep.SkillPathHidden, rep.Warnings, want)
	}
}
