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

// ProbeArg makes the test binary the self-test's probe: with "hold FILE"
// it holds FILE open without delete sharing until it is killed.
const ProbeArg = probeArg

// StillHeld reports whether a process still holds file, as the self-test
// checks that its probe's second process died.
var StillHeld = stillHeld
