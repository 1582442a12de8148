package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Functions golang.org/x/sys/windows does not wrap.
var (
	procCreateRestrictedToken = windows.NewLazySystemDLL("advapi32.dll").NewProc("CreateRestrictedToken")
	procNtResumeProcess       = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")
)

// disableMaxPrivilege is DISABLE_MAX_PRIVILEGE of CreateRestrictedToken:
// every privilege but SeChangeNotifyPrivilege is removed.
const disableMaxPrivilege = 0x1

// lowIntegrityToken is a primary token for the command: the server's own
// token without its privileges, with the Administrators group (when the
// server runs elevated) usable only to deny, at low integrity
// (S-1-16-4096). Such a process cannot write any object whose mandatory
// label is medium or higher, which is every file and folder without a
// label, nor open the server's or the user's other processes for writing.
func lowIntegrityToken() (windows.Token, error) {
	var own windows.Token
	err := windows.OpenProcessToken(windows.CurrentProcess(),
		windows.TOKEN_DUPLICATE|windows.TOKEN_ASSIGN_PRIMARY|windows.TOKEN_QUERY|windows.TOKEN_ADJUST_DEFAULT, &own)
	if err != nil {
		return 0, fmt.Errorf("open own token: %w", err)
	}
	defer own.Close()
	admins, err := windows.CreateWellKnownSid(windows.WinBuiltinAdministratorsSid)
	if err != nil {
		return 0, err
	}
	disable := []windows.SIDAndAttributes{{Sid: admins}}
	var restricted windows.Token
	r, _, e := procCreateRestrictedToken.Call(uintptr(own), disableMaxPrivilege,
		uintptr(len(disable)), uintptr(unsafe.Pointer(&disable[0])), 0, 0, 0, 0, uintptr(unsafe.Pointer(&restricted)))
	runtime.KeepAlive(admins)
	if r == 0 {
		return 0, fmt.Errorf("CreateRestrictedToken: %w", e)
	}
	low, err := windows.CreateWellKnownSid(windows.WinLowLabelSid)
	if err != nil {
		restricted.Close()
		return 0, err
	}
	label := windows.Tokenmandatorylabel{Label: windows.SIDAndAttributes{Sid: low, Attributes: windows.SE_GROUP_INTEGRITY}}
	if err := windows.SetTokenInformation(restricted, windows.TokenIntegrityLevel, (*byte)(unsafe.Pointer(&label)), label.Size()); err != nil {
		restricted.Close()
		return 0, fmt.Errorf("set integrity level low: %w", err)
	}
	return restricted, nil
}

// lowIntegrityLabelSDDL is the mandatory label of a run's private folder:
// low integrity (LW), no write up (NW), inherited by the files (OI) and
// folders (CI) created in it. A low-integrity process may write there
// and, without a label, nowhere: an object without one counts as medium.
const lowIntegrityLabelSDDL = "S:(ML;OICI;NW;;;LW)"

// labelLow gives folder the low mandatory label, inherited by what is
// created in it. Lowering a label to or below one's own integrity needs
// no privilege, only WRITE_OWNER on the folder (the user's own).
func labelLow(folder string) error {
	sd, err := windows.SecurityDescriptorFromString(lowIntegrityLabelSDDL)
	if err != nil {
		return err
	}
	sacl, _, err := sd.SACL()
	if err != nil {
		return err
	}
	p, err := windows.UTF16PtrFromString(folder)
	if err != nil {
		return err
	}
	h, err := windows.CreateFile(p, windows.WRITE_OWNER|windows.READ_CONTROL, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.SetSecurityInfo(h, windows.SE_FILE_OBJECT, windows.LABEL_SECURITY_INFORMATION, nil, nil, nil, sacl)
}

// jobCPURateControl is JOBOBJECT_CPU_RATE_CONTROL_INFORMATION with the
// CpuRate member of its union.
type jobCPURateControl struct {
	ControlFlags uint32
	CPURate      uint32
}

// JOB_OBJECT_CPU_RATE_CONTROL_ENABLE | JOB_OBJECT_CPU_RATE_CONTROL_HARD_CAP.
const cpuRateHardCap = 0x1 | 0x4

// newJob creates the job object of a run with its limits. A process in
// it cannot leave it (no JOB_OBJECT_LIMIT_BREAKAWAY_OK), its children are
// in it too, and closing the last handle kills all of them. The CPU rate
// cap is a warning when the host refuses it, as the cgroup CPU quota is
// on Linux; every other limit fails the run.
func newJob(l jobLimits) (job windows.Handle, warnings []string, err error) {
	job, err = windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, nil, &SetupError{Step: "create job object", Err: err}
	}
	var ext windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	ext.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
		windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS | windows.JOB_OBJECT_LIMIT_JOB_MEMORY |
		windows.JOB_OBJECT_LIMIT_JOB_TIME | windows.JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION
	ext.BasicLimitInformation.ActiveProcessLimit = l.ActiveProcesses
	ext.BasicLimitInformation.PerJobUserTimeLimit = l.UserTime
	ext.JobMemoryLimit = uintptr(l.JobMemory)
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&ext)), uint32(unsafe.Sizeof(ext))); err != nil {
		windows.CloseHandle(job)
		return 0, nil, &SetupError{Step: "limit job object", Err: err}
	}
	ui := windows.JOBOBJECT_BASIC_UI_RESTRICTIONS{UIRestrictionsClass: l.UIRestrictions}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectBasicUIRestrictions,
		uintptr(unsafe.Pointer(&ui)), uint32(unsafe.Sizeof(ui))); err != nil {
		windows.CloseHandle(job)
		return 0, nil, &SetupError{Step: "restrict job object UI", Err: err}
	}
	rate := jobCPURateControl{ControlFlags: cpuRateHardCap, CPURate: l.CPURate}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectCpuRateControlInformation,
		uintptr(unsafe.Pointer(&rate)), uint32(unsafe.Sizeof(rate))); err != nil {
		warnings = append(warnings, "this run has no CPU rate cap: "+err.Error())
	}
	return job, warnings, nil
}

// makeJunction creates link, a new folder, as a junction to target. On a
// file system without reparse points (FAT, exFAT; Wine) the error is
// errNoJunction and link does not exist.
func makeJunction(link, target string) (err error) {
	if err := os.Mkdir(link, 0o700); err != nil {
		return unwrapPathError(err)
	}
	defer func() {
		if errors.Is(err, windows.ERROR_NOT_SUPPORTED) || errors.Is(err, windows.ERROR_INVALID_FUNCTION) {
			_ = os.Remove(link)
			err = fmt.Errorf("%w: %w", errNoJunction, err)
		}
	}()
	p, err := windows.UTF16PtrFromString(link)
	if err != nil {
		return err
	}
	h, err := windows.CreateFile(p, windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	data := mountPointReparseData(target)
	var n uint32
	return windows.DeviceIoControl(h, windows.FSCTL_SET_REPARSE_POINT, &data[0], uint32(len(data)), nil, 0, &n, nil)
}

// errNoJunction is why a run has no ./skill: the file system of the
// temporary folder has no reparse points.
var errNoJunction = errors.New("the file system of the temporary folder cannot hold a junction")

// folderID is the volume serial number and file index of the folder at
// path, read from a handle opened without following a final reparse
// point: what the skill registry records at discovery
// (internal/skills/proc_windows.go).
func folderID(h windows.Handle) (FolderID, error) {
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return FolderID{}, err
	}
	return FolderID{Dev: uint64(d.VolumeSerialNumber), Ino: uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)}, nil
}

// openFolder opens the folder at path, not following a final reparse
// point, for reading its identity; without FILE_SHARE_DELETE, so that
// nobody can rename or delete it while the handle is open.
func openFolder(path string) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	return windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
}

// openDiscovered opens the skill folder and checks that it is still the
// folder discovered. The handle stays open for the whole run, so the
// folder cannot be swapped for another under its path meanwhile.
func openDiscovered(dir string, want FolderID) (windows.Handle, error) {
	h, err := openFolder(dir)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", dir, err)
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		windows.CloseHandle(h)
		return 0, fmt.Errorf("%s: %w", dir, err)
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		windows.CloseHandle(h)
		return 0, fmt.Errorf("%s: a reparse point (a link or junction) is now there: the folder is no longer the one discovered", dir)
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY == 0 {
		windows.CloseHandle(h)
		return 0, fmt.Errorf("%s: no longer a folder", dir)
	}
	got := FolderID{Dev: uint64(info.VolumeSerialNumber), Ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)}
	if got != want {
		windows.CloseHandle(h)
		return 0, fmt.Errorf("%s is no longer the folder discovered (volume:index %d:%d, now %d:%d): refusing to run; "+
			"restart vox-mcp to serve the folder that is there now", dir, want.Dev, want.Ino, got.Dev, got.Ino)
	}
	return h, nil
}
