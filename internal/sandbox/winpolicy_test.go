package sandbox

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// The job of a run carries the Linux cgroup limits; its CPU time is the
// timeout's worth at the CPU rate, plus a second.
func TestJobLimitsFor(t *testing.T) {
	for _, tc := range []struct {
		timeout  time.Duration
		cpus     int
		userTime int64 // 100 ns units
		rate     uint32
	}{
		{30 * time.Second, 8, (30*4 + 1) * 10_000_000, 5000},
		{1500 * time.Millisecond, 2, (2*1 + 1) * 10_000_000, 5000},
		{time.Second, 1, (1*1 + 1) * 10_000_000, 10000},
		{MaxTimeout, 3, (300*1 + 1) * 10_000_000, 3333},
	} {
		l := jobLimitsFor(tc.timeout, tc.cpus)
		if l.ActiveProcesses != CgroupPids || l.JobMemory != CgroupMemory || l.UIRestrictions != 0xff {
			t.Errorf("%v on %d CPUs: %+v, want %d processes, %d bytes, every UI restriction (0xff)", tc.timeout, tc.cpus, l, CgroupPids, CgroupMemory)
		}
		if l.UserTime != tc.userTime || l.CPURate != tc.rate {
			t.Errorf("%v on %d CPUs: CPU time %d, rate %d; want %d, %d", tc.timeout, tc.cpus, l.UserTime, l.CPURate, tc.userTime, tc.rate)
		}
	}
}

func TestCmdLine(t *testing.T) {
	got := cmdLine(`C:\Windows\System32\cmd.exe`, `echo "a b" & type skill\x.txt`)
	want := `"C:\Windows\System32\cmd.exe" /d /s /c "echo "a b" & type skill\x.txt"`
	if got != want {
		t.Fatalf("cmdLine = %s, want %s", got, want)
	}
}

func TestCheckWindowsCommand(t *testing.T) {
	if err := checkWindowsCommand("echo a && echo b"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"echo a\necho b", "echo a\r\n", strings.Repeat("é", maxWindowsCommand+1)} {
		if err := checkWindowsCommand(bad); err == nil {
			t.Errorf("command of %d bytes accepted: %.20q", len(bad), bad)
		}
	}
	// The limit counts UTF-16 code units: a character outside the BMP is two.
	if err := checkWindowsCommand(strings.Repeat("😀", maxWindowsCommand/2+1)); err == nil || !strings.Contains(err.Error(), "UTF-16") {
		t.Errorf("err %v, want the UTF-16 length refused", err)
	}
}

// The environment is exactly the system folders and the run's own
// variables: nothing of the host's.
func TestWindowsEnv(t *testing.T) {
	got := strings.Join(windowsEnv(`C:\Windows`, `C:\T\vox-skill-run-1`, "pdf", `C:\w\skills\pdf`), "\n")
	want := strings.Join([]string{
		`SystemRoot=C:\Windows`,
		`windir=C:\Windows`,
		`ComSpec=C:\Windows\System32\cmd.exe`,
		`PATH=C:\Windows\System32;C:\Windows;C:\Windows\System32\Wbem;C:\Windows\System32\WindowsPowerShell\v1.0`,
		`PATHEXT=.COM;.EXE;.BAT;.CMD`,
		`HOME=C:\T\vox-skill-run-1`,
		`USERPROFILE=C:\T\vox-skill-run-1`,
		`TEMP=C:\T\vox-skill-run-1`,
		`TMP=C:\T\vox-skill-run-1`,
		`LANG=C.UTF-8`,
		`VOX_SKILL_ID=pdf`,
		`VOX_SKILL_DIR=C:\w\skills\pdf`,
	}, "\n")
	if got != want {
		t.Fatalf("environment:\n%s\nwant:\n%s", got, want)
	}
}

// The junction's reparse data is REPARSE_DATA_BUFFER's mount point form.
func TestMountPointReparseData(t *testing.T) {
	b := mountPointReparseData(`C:\skills\pdf`)
	le := binary.LittleEndian
	sub, print := `\??\C:\skills\pdf`, `C:\skills\pdf`
	if tag := le.Uint32(b); tag != 0xA0000003 {
		t.Fatalf("tag %#x", tag)
	}
	if n := int(le.Uint16(b[4:])); n != len(b)-8 {
		t.Fatalf("data length %d, buffer %d", n, len(b))
	}
	name := func(off, n uint16) string {
		u := make([]uint16, n/2)
		for i := range u {
			u[i] = le.Uint16(b[16+int(off)+2*i:])
		}
		return string(utf16.Decode(u))
	}
	if got := name(le.Uint16(b[8:]), le.Uint16(b[10:])); got != sub {
		t.Errorf("substitute name %q, want %q", got, sub)
	}
	if got := name(le.Uint16(b[12:]), le.Uint16(b[14:])); got != print {
		t.Errorf("print name %q, want %q", got, print)
	}
	if len(b) != 16+2*(len(sub)+1+len(print)+1) {
		t.Errorf("buffer of %d bytes, want both names with their NULs", len(b))
	}
}

func TestJudgeProbe(t *testing.T) {
	denied := "Access is denied."
	held := probeReport{OutsideWrite: denied, SkillWrite: denied, OutsideRead: denied, Network: denied}
	for _, tc := range []struct {
		name    string
		r       probeReport
		f       probeFindings
		problem string // "" means no problem
	}{
		{"all hold", held, probeFindings{}, ""},
		{"private folder not writable", probeReport{TempWrite: denied, OutsideWrite: denied, SkillWrite: denied}, probeFindings{}, "cannot write its private folder"},
		{"write outside", probeReport{SkillWrite: denied}, probeFindings{}, `"` + ProtectWriteOutside + `" did not hold`},
		{"write outside seen by the parent", held, probeFindings{OutsideWritten: true}, `"` + ProtectWriteOutside + `" did not hold`},
		{"skill folder written", probeReport{OutsideWrite: denied}, probeFindings{}, `"` + ProtectSkillWrite + `" did not hold`},
		{"skill folder written, seen by the parent", held, probeFindings{SkillWritten: true}, `"` + ProtectSkillWrite + `" did not hold`},
		{"no second process", probeReport{OutsideWrite: denied, SkillWrite: denied, Holder: "no"}, probeFindings{}, "could not start a second process"},
		{"a process outlived the run", held, probeFindings{HolderAlive: true}, `"` + ProtectKillAll + `" did not hold`},
	} {
		warnings, err := judgeProbe(tc.r, tc.f)
		switch {
		case tc.problem == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.problem)
		case tc.problem != "" && warnings != nil:
			t.Errorf("%s: warnings %q with a failure", tc.name, warnings)
		}
	}
	// Reads and the network are observed, not claimed: what got through
	// is a warning each.
	warnings, err := judgeProbe(probeReport{OutsideWrite: "denied", SkillWrite: "denied"}, probeFindings{Connected: true})
	if err != nil || len(warnings) != 2 || !strings.Contains(warnings[0], "reads are not confined") || !strings.Contains(warnings[1], "network is not blocked") {
		t.Fatalf("warnings %q, err %v; want the read and the network named", warnings, err)
	}
	if warnings, _ := judgeProbe(held, probeFindings{Connected: true}); len(warnings) != 1 || !strings.Contains(warnings[0], "network") {
		t.Fatalf("warnings %q: the listener's accepted connection alone must name the network", warnings)
	}
}
