package sandbox

import (
	"encoding/gob"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"testing"
)

func TestRecoverError(t *testing.T) {
	f := func() (err error) {
		defer recoverError(&err)
		var m map[string]int
		m["x"] = 1 // panics
		return nil
	}
	if err := f(); err == nil || err.Error() != "sandbox: internal error: assignment to entry in nil map" {
		t.Errorf("got %v", err)
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for in, want := range map[string]string{
		`/plain`:          "/plain",
		`/with\040space`:  "/with space",
		`/tab\011and\134`: "/tab\tand\\",
		`/short\04`:       `/short\04`,
	} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestInitRefusesOutsideNamespaces starts the init with a valid config but
// in the host's namespaces, as someone running the binary with InitArg by
// hand would: it must stop before it touches a mount.
func TestInitRefusesOutsideNamespaces(t *testing.T) {
	before, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	configR, configW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer statusR.Close()
	cmd := exec.Command("/proc/self/exe", InitArg)
	cmd.ExtraFiles = []*os.File{configR, statusW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	configR.Close()
	statusW.Close()
	err = gob.NewEncoder(configW).Encode(initConfig{Root: t.TempDir(), SkillDir: t.TempDir(), Command: "echo ran"})
	configW.Close()
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(statusR)
	waitErr := cmd.Wait()
	var st initStatus
	if err := json.Unmarshal(msg, &st); err != nil {
		t.Fatalf("status %q: %v", msg, err)
	}
	if st.OK || st.Step != stepCheck || st.Detail != "not PID 1 of a new PID namespace" {
		t.Errorf("status %+v, want a refusal at %q", st, stepCheck)
	}
	if waitErr == nil {
		t.Error("the init exited 0")
	}
	if after, _ := os.ReadFile("/proc/self/mountinfo"); string(after) != string(before) {
		t.Errorf("mounts changed:\n%s\n---\n%s", before, after)
	}
}
