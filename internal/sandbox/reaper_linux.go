package sandbox

import (
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Without a PID namespace nothing kills what a command leaves behind, and a
// process group does not hold a process that called setsid. So the
// unisolated helper is a child subreaper (PR_SET_CHILD_SUBREAPER): every
// orphan among its descendants becomes its child instead of init's, and
// stays its descendant. killDescendants then finds every process below the
// helper and kills it.

// procEntry is what /proc/PID/stat says of a live process.
type procEntry struct {
	ppid  int
	start uint64 // start time in clock ticks since boot: with the PID, it names one process
}

// readProcStat reads the parent and start time of pid; ok is false when
// the process is gone or a zombie (it can do nothing more).
func readProcStat(pid int) (procEntry, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procEntry{}, false
	}
	// The command name is in parentheses and may hold anything; the fields
	// after the last ')' are plain: state ppid pgrp ... starttime (the
	// 20th after the name).
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procEntry{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return procEntry{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return procEntry{}, false
	}
	return procEntry{ppid: ppid, start: start}, true
}

// descendants lists the live processes below pid, with their start times.
func descendants(pid int) map[int]uint64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	procs := map[int]procEntry{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pe, ok := readProcStat(p); ok {
			procs[p] = pe
		}
	}
	children := map[int][]int{}
	for p, pe := range procs {
		children[pe.ppid] = append(children[pe.ppid], p)
	}
	below := map[int]uint64{}
	queue := children[pid]
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if _, seen := below[p]; seen || p == pid {
			continue
		}
		below[p] = procs[p].start
		queue = append(queue, children[p]...)
	}
	return below
}

// killDescendants sends SIGKILL to every process below the calling process
// until none is left alive. Each kill goes through a pidfd opened after
// checking the start time, so a PID that was reused by another process
// between the scan and the kill is never signalled. Killed processes are
// reaped by the caller's reaper; their orphans come to this process and are
// found by the next scan.
func killDescendants() {
	self := os.Getpid()
	for round := 0; ; round++ {
		procs := descendants(self)
		if len(procs) == 0 {
			return
		}
		for pid, start := range procs {
			killIfSame(pid, start)
		}
		// SIGKILL is delivered asynchronously; give it a moment before
		// looking again, longer as rounds go by.
		time.Sleep(time.Duration(min(round+1, 20)) * time.Millisecond)
	}
}

// killIfSame kills pid if it is still the process that started at start.
func killIfSame(pid int, start uint64) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if err == unix.ENOSYS {
			// A kernel before 5.3: no pidfd. Kill by PID after checking
			// the start time again, which leaves only a tiny window.
			if pe, ok := readProcStat(pid); ok && pe.start == start {
				_ = unix.Kill(pid, unix.SIGKILL)
			}
		}
		return
	}
	defer unix.Close(fd)
	if pe, ok := readProcStat(pid); ok && pe.start == start {
		_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	}
}
