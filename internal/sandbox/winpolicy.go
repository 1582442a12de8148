package sandbox

// The Windows sandbox's policy as plain data: the job object's limits,
// the command line, the environment, the junction ./skill and the
// verdict on the self-test's probe. It is kept out of the _windows files so that it is unit-tested
// on every system; run_windows.go applies it.

import (
	"encoding/binary"
	"fmt"
	"strings"
	"time"
	"unicode/utf16"
)

// The job object's UI restrictions (JOB_OBJECT_UILIMIT_*, winnt.h):
// every one there is. A command cannot use the user's windows and
// hooks (HANDLES), the clipboard, system settings, the display,
// global atoms, other desktops, or log the user off.
const (
	uiLimitHandles          = 0x01
	uiLimitReadClipboard    = 0x02
	uiLimitWriteClipboard   = 0x04
	uiLimitSystemParameters = 0x08
	uiLimitDisplaySettings  = 0x10
	uiLimitGlobalAtoms      = 0x20
	uiLimitDesktop          = 0x40
	uiLimitExitWindows      = 0x80
	uiLimitAll              = uiLimitHandles | uiLimitReadClipboard | uiLimitWriteClipboard | uiLimitSystemParameters |
		uiLimitDisplaySettings | uiLimitGlobalAtoms | uiLimitDesktop | uiLimitExitWindows
)

// jobLimits is what a run's job object enforces on all its processes
// together.
type jobLimits struct {
	ActiveProcesses uint32 // JOB_OBJECT_LIMIT_ACTIVE_PROCESS
	JobMemory       uint64 // JOB_OBJECT_LIMIT_JOB_MEMORY: bytes committed
	// UserTime is JOB_OBJECT_LIMIT_JOB_TIME, in 100 ns units: the CPU
	// the command may use over the whole timeout at the CPU rate, plus
	// one second (as RLIMIT_CPU is on Linux), so that a command whose
	// timeout's kill failed still dies.
	UserTime int64
	// CPURate is the hard cap of JobObjectCpuRateControlInformation, in
	// hundredths of a percent of the whole machine: the share of
	// cgroupCPUs() among numCPU.
	CPURate        uint32
	UIRestrictions uint32
}

// jobLimitsFor is the job of a run with this timeout on a host with
// numCPU processors: the Linux cgroup limits (CgroupPids processes,
// CgroupMemory bytes, cgroupCPUs() CPUs) and the UI restrictions.
func jobLimitsFor(timeout time.Duration, numCPU int) jobLimits {
	cpus := max(1, numCPU/2)
	numCPU = max(1, numCPU)
	seconds := int64((timeout + time.Second - 1) / time.Second)
	return jobLimits{
		ActiveProcesses: CgroupPids,
		JobMemory:       CgroupMemory,
		UserTime:        (seconds*int64(cpus) + 1) * int64(time.Second/100),
		CPURate:         uint32(max(1, cpus*10000/numCPU)),
		UIRestrictions:  uiLimitAll,
	}
}

// maxWindowsCommand is the longest command cmd.exe runs (its limit of
// 8191 characters, in UTF-16 code units, less the quotes around it).
const maxWindowsCommand = 8191 - 2

// checkWindowsCommand refuses what cmd.exe /c would not run as given.
func checkWindowsCommand(command string) error {
	if strings.ContainsAny(command, "\r\n") {
		return fmt.Errorf("sandbox: the command has a line break; on Windows it runs with cmd.exe /c, which runs only the first line: join the lines with &&")
	}
	if n := len(utf16.Encode([]rune(command))); n > maxWindowsCommand {
		return fmt.Errorf("sandbox: command is %d UTF-16 code units long, cmd.exe runs at most %d", n, maxWindowsCommand)
	}
	return nil
}

// cmdLine is the command line of cmd.exe running command: /d skips the
// AutoRun commands of the registry (which the user's HKCU sets), /s
// makes cmd.exe strip exactly the outer quotes and run the rest as
// written, so the command needs no escaping.
func cmdLine(comspec, command string) string {
	return `"` + comspec + `" /d /s /c "` + command + `"`
}

// windowsEnv is the whole environment of a command on Windows: what
// Windows programs need to start (the system folders) and the same
// variables as on Linux; nothing else of the host. The private folder
// is the working folder, the home and the temp folder; VOX_SKILL_DIR is
// the skill folder's path (./skill is a junction to it, where the file
// system has junctions).
func windowsEnv(systemRoot, home, skillID, skillDir string) []string {
	sys32 := systemRoot + `\System32`
	return []string{
		"SystemRoot=" + systemRoot,
		"windir=" + systemRoot,
		"ComSpec=" + sys32 + `\cmd.exe`,
		"PATH=" + sys32 + ";" + systemRoot + ";" + sys32 + `\Wbem;` + sys32 + `\WindowsPowerShell\v1.0`,
		"PATHEXT=.COM;.EXE;.BAT;.CMD",
		"HOME=" + home,
		"USERPROFILE=" + home,
		"TEMP=" + home,
		"TMP=" + home,
		"LANG=C.UTF-8",
		"VOX_SKILL_ID=" + skillID,
		"VOX_SKILL_DIR=" + skillDir,
	}
}

// ioReparseTagMountPoint is IO_REPARSE_TAG_MOUNT_POINT, a junction.
const ioReparseTagMountPoint = 0xA0000003

// mountPointReparseData is the REPARSE_DATA_BUFFER that makes a folder a
// junction to target (an absolute path): the substitute name in NT form
// (\??\C:\...), then the print name, each ended by a NUL. A junction,
// unlike a symbolic link, needs no privilege to create.
func mountPointReparseData(target string) []byte {
	sub := utf16.Encode([]rune(`\??\` + target))
	print := utf16.Encode([]rune(target))
	path := make([]uint16, 0, len(sub)+len(print)+2)
	path = append(append(append(append(path, sub...), 0), print...), 0)
	dataLen := 8 + 2*len(path) // the four offsets and lengths, then the names
	b := make([]byte, 8+dataLen)
	le := binary.LittleEndian
	le.PutUint32(b[0:], ioReparseTagMountPoint)
	le.PutUint16(b[4:], uint16(dataLen))
	le.PutUint16(b[8:], 0)                       // SubstituteNameOffset
	le.PutUint16(b[10:], uint16(2*len(sub)))     // SubstituteNameLength
	le.PutUint16(b[12:], uint16(2*(len(sub)+1))) // PrintNameOffset
	le.PutUint16(b[14:], uint16(2*len(print)))   // PrintNameLength
	for i, u := range path {
		le.PutUint16(b[16+2*i:], u)
	}
	return b
}

// The protections the Windows self-test checks by doing what they forbid.
const (
	ProtectWriteOutside = "writes outside the private folder"
	ProtectSkillWrite   = "the skill folder read-only"
	ProtectKillAll      = "every process killed at the end of the run"
)

// probeReport is what the self-test's probe, run in the sandbox, did.
// Each error is "" when the action succeeded.
type probeReport struct {
	TempWrite    string `json:"temp_write"`    // a file in the private folder
	OutsideWrite string `json:"outside_write"` // a file in a medium-integrity folder
	SkillWrite   string `json:"skill_write"`   // a file in the skill folder
	OutsideRead  string `json:"outside_read"`  // a file of that folder
	Network      string `json:"network"`       // a TCP connection to the self-test's listener
	Holder       string `json:"holder"`        // a second process, left running
}

// probeFindings is what the parent saw itself after the run.
type probeFindings struct {
	OutsideWritten bool // the file the probe tried to write outside exists
	SkillWritten   bool // the file it tried to write in the skill folder exists
	HolderAlive    bool // the second process still held its file after the run
	Connected      bool // the listener accepted a connection
}

// judgeProbe is the self-test's verdict: an error naming the first
// protection that did not hold (or why the probe could not say), else
// the warnings for what the mechanism does not confine.
func judgeProbe(r probeReport, f probeFindings) (warnings []string, err error) {
	failed := func(name, how string) error {
		return fmt.Errorf("sandbox: self-test: protection %q did not hold: %s; vox_skill_run fails closed on this host "+
			"(docs/sandbox.md, \"Windows\")", name, how)
	}
	switch {
	case r.TempWrite != "":
		return nil, fmt.Errorf("sandbox: self-test: the command cannot write its private folder: %s", r.TempWrite)
	case r.OutsideWrite == "" || f.OutsideWritten:
		return nil, failed(ProtectWriteOutside, "a low-integrity command wrote a file into a medium-integrity folder (the host does not enforce integrity levels)")
	case r.SkillWrite == "" || f.SkillWritten:
		return nil, failed(ProtectSkillWrite, "the command wrote a file into the skill folder")
	case r.Holder != "":
		return nil, fmt.Errorf("sandbox: self-test: the command could not start a second process: %s", r.Holder)
	case f.HolderAlive:
		return nil, failed(ProtectKillAll, "a process the command started still ran after the run ended")
	}
	if r.OutsideRead == "" {
		warnings = append(warnings, "reads are not confined on Windows: a command reads every file the user running vox-mcp may read (the low integrity level denies writes, not reads)")
	}
	if r.Network == "" || f.Connected {
		warnings = append(warnings, "the network is not blocked on Windows: a command connected to a local listener (a low-integrity token does not confine sockets)")
	}
	return warnings, nil
}
