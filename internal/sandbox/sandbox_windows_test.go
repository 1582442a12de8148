package sandbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vox-lang/vox-mcp/internal/sandbox"
	"golang.org/x/sys/windows"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunInit()
	os.Exit(m.Run())
}

// skillSpec is a run of command for a fresh skill folder.
func skillSpec(t *testing.T, command string) sandbox.Spec {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "skill")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("skill body\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	id, err := sandbox.FolderIDOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	return sandbox.Spec{SkillID: "test-skill", SkillDir: dir, Folder: id, Command: command}
}

// The UI restrictions are every JOB_OBJECT_UILIMIT_* of winnt.h.
func TestUIRestrictionsAreWindows(t *testing.T) {
	want := uint32(windows.JOB_OBJECT_UILIMIT_HANDLES | windows.JOB_OBJECT_UILIMIT_READCLIPBOARD |
		windows.JOB_OBJECT_UILIMIT_WRITECLIPBOARD | windows.JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS |
		windows.JOB_OBJECT_UILIMIT_DISPLAYSETTINGS | windows.JOB_OBJECT_UILIMIT_GLOBALATOMS |
		windows.JOB_OBJECT_UILIMIT_DESKTOP | windows.JOB_OBJECT_UILIMIT_EXITWINDOWS)
	if sandbox.UILimitAll != want {
		t.Fatalf("UI restrictions %#x, want %#x", sandbox.UILimitAll, want)
	}
}

// Without isolation a command still runs in its private folder, reads
// the skill folder through ./skill, sees only the scrubbed environment,
// and its exit status comes back.
func TestUnisolatedRun(t *testing.T) {
	spec := skillSpec(t, `type "%VOX_SKILL_DIR%\SKILL.md" && echo id=%VOX_SKILL_ID% home=%USERPROFILE% cd=%CD% & echo secret=%VOX_TEST_SECRET% & exit /b 3`)
	t.Setenv("VOX_TEST_SECRET", "leaked")
	res, err := sandbox.RunUnisolated(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.TimedOut {
		t.Fatalf("exit %d, timed out %v; stdout %q stderr %q", res.ExitCode, res.TimedOut, res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "skill body") || !strings.Contains(res.Stdout, "id=test-skill") {
		t.Errorf("stdout %q: want the skill file and the skill id", res.Stdout)
	}
	if strings.Contains(res.Stdout, "leaked") {
		t.Errorf("stdout %q: the host's environment reached the command", res.Stdout)
	}
	home, _, _ := strings.Cut(strings.SplitN(res.Stdout, "home=", 2)[1], " ")
	if !strings.Contains(res.Stdout, "cd="+home) || !strings.Contains(home, "vox-skill-run-") {
		t.Errorf("stdout %q: the working folder should be the private folder, which is also the home", res.Stdout)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("the private folder %s is still there after the run (%v)", home, err)
	}
}

// At the timeout the job is killed: a process the command started in
// the background (this binary, holding the run's output open) is gone
// too, so the output ends with the run.
func TestUnisolatedTimeoutKillsTheJob(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec := skillSpec(t, `start "" /b "`+exe+`" `+sandbox.ProbeArg+` hold & ping -n 600 127.0.0.1 >nul`)
	spec.Timeout = 3 * time.Second
	res, err := sandbox.RunUnisolated(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != -1 {
		t.Fatalf("exit %d, timed out %v; want the timeout", res.ExitCode, res.TimedOut)
	}
	if !strings.Contains(res.Stderr, "held") {
		t.Fatalf("stdout %q stderr %q: the background process did not start", res.Stdout, res.Stderr)
	}
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, sandbox.OutlivedWarning) {
			t.Fatalf("a process the command started in the background outlived the run: %s", w)
		}
	}
}

// A command with a line break is refused before anything runs: cmd.exe
// would run its first line only.
func TestMultilineCommandRefused(t *testing.T) {
	_, err := sandbox.RunUnisolated(context.Background(), skillSpec(t, "echo a\necho b"))
	if err == nil || !strings.Contains(err.Error(), "line break") {
		t.Fatalf("err %v, want the line break refused", err)
	}
}

// A skill folder replaced after discovery is refused at StepOpenSkill.
func TestSwappedSkillFolderRefused(t *testing.T) {
	spec := skillSpec(t, "echo hi")
	if err := os.Rename(spec.SkillDir, spec.SkillDir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(spec.SkillDir, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := sandbox.RunUnisolated(context.Background(), spec)
	var se *sandbox.SetupError
	if !errors.As(err, &se) || se.Step != sandbox.StepOpenSkill {
		t.Fatalf("err %v, want a SetupError at %q", err, sandbox.StepOpenSkill)
	}
}
