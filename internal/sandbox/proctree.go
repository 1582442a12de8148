package sandbox

// procInfo is what the host says of a live process.
type procInfo struct {
	pid, ppid, pgid int
	start           int64 // start time: with the PID, it names one process
}

// runProcesses selects, from a listing of the host's live processes, those
// of the run whose first process is root: the members of root's process
// group, and every process below root or below one of those by parent.
// A process that left the group and whose parent then exited is not
// found: nothing on the host ties it to the run any more.
func runProcesses(procs []procInfo, root int) []procInfo {
	children := map[int][]int{}
	byPID := make(map[int]procInfo, len(procs))
	for _, p := range procs {
		byPID[p.pid] = p
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	seen := map[int]bool{}
	var out []procInfo
	queue := children[root]
	for _, p := range procs {
		if p.pgid == root {
			queue = append(queue, p.pid)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] || pid == root || pid <= 1 {
			continue
		}
		seen[pid] = true
		out = append(out, byPID[pid])
		queue = append(queue, children[pid]...)
	}
	return out
}
