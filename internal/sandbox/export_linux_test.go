package sandbox

import (
	"context"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// RunFailingAt is Run with set-up step failStep made to fail with EPERM.
func (c Config) RunFailingAt(ctx context.Context, spec Spec, failStep string) (Result, error) {
	res, _, err := c.run(ctx, spec, true, failStep)
	return res, err
}

// StepSkillOverlay is the test hook's name for a host where overlayfs
// cannot be mounted: the skill folder is bound instead.
const StepSkillOverlay = stepSkillOverlay

// SelfTestFailingAt is SelfTest with failStep made to fail.
func (c Config) SelfTestFailingAt(ctx context.Context, failStep string) Report {
	return c.selfTest(ctx, failStep)
}

// RunUnisolatedFailingAt is RunUnisolated with failStep made to fail.
func (c Config) RunUnisolatedFailingAt(ctx context.Context, spec Spec, failStep string) (Result, error) {
	res, _, err := c.run(ctx, spec, false, failStep)
	return res, err
}

// FixedSetupSteps are the set-up steps whose names do not depend on which
// host paths exist, in order.
var FixedSetupSteps = []string{
	stepUndumpable, stepCloseFiles, stepCheck, stepPrivate, stepOpenSkill, stepRoot, stepProc, stepDev, stepTmp,
	stepSkill, stepSkillRO, stepPivot, stepOldRoot, stepRootRO, stepChdir, stepHostname, stepBounding, stepAmbient,
	stepNoNewPriv, stepCapset, stepRlimits, stepLandlock, stepSeccomp, stepExec,
}

// UnisolatedSetupSteps are the steps of the unisolated helper, in order.
var UnisolatedSetupSteps = []string{
	stepCloseFiles, stepOpenSkill, stepSubreaper, stepNoNewPriv, stepRlimits, stepSeccomp, stepExec,
}

// TruncationMarker is the text that ends a cut stream.
var TruncationMarker = truncationMarker

// ExecFiltered replaces the process with path, after installing the
// seccomp filter (filter) or not, on the locked thread that executes it.
func ExecFiltered(filter bool, path string, args []string) error {
	runtime.LockOSThread()
	if filter {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return err
		}
		if err := installSeccomp(); err != nil {
			return err
		}
	}
	return syscall.Exec(path, args, []string{"PATH=/usr/bin:/bin"})
}

// LandlockABI is the kernel's Landlock ABI version, 0 for none.
func LandlockABI() int { return landlockABI() }

// RestrictLandlockForTest restricts the calling (locked) thread to reading
// below the folders readable and to everything below writable.
func RestrictLandlockForTest(readable, writable []string) error {
	abi := landlockABI()
	var rules []landlockRule
	for _, r := range readable {
		rules = append(rules, landlockRule{r, llReadFile | llReadDir})
	}
	for _, w := range writable {
		rules = append(rules, landlockRule{w, landlockHandled(abi)})
	}
	return restrictLandlock(abi, rules)
}

// CgroupOwner exposes the parsing of run cgroup names.
var CgroupOwner = cgroupOwner

// SweepCgroups removes the cgroups of servers no longer alive under root,
// however young.
func SweepCgroups(root string) {
	detectCgroups(root, "/proc/self/mountinfo", "/proc/self/cgroup").sweep(0)
}
