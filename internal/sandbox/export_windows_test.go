package sandbox

import "golang.org/x/sys/windows"

// FolderIDOf is the identity of the folder at path, as the skill
// registry records it at discovery.
func FolderIDOf(path string) (FolderID, error) {
	h, err := openFolder(path)
	if err != nil {
		return FolderID{}, err
	}
	defer windows.CloseHandle(h)
	return folderID(h)
}

// UILimitAll is every JOB_OBJECT_UILIMIT_* the job object sets.
const UILimitAll = uiLimitAll

// ProbeArg makes the test binary the self-test's probe: with "hold" it
// says "held" on stderr and runs until it is killed, holding its stdout.
const ProbeArg = probeArg

// OutlivedWarning starts the warning of a run after which a process
// still held the output open.
const OutlivedWarning = outlivedWarning
