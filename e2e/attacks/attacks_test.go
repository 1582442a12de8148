// Package attacks is vox-mcp's attack suite: one script per attack under
// testdata/, run through the interfaces a user touches — the vox CLI and
// the vox-mcp server over stdio (and HTTP, where a case needs it).
//
// A case is a testscript txtar file. Its comment section starts with
//
//	# attack: what the attacker does
//	# holds: what must hold afterwards
//
// (TestAttackCasesSayWhat fails a case without them), followed by the
// script and the files it needs: a hostile workspace, skill or catalog.
// Besides testscript's own commands a script has:
//
//	exec vox ... / exec vox-mcp ...   the binaries under test, on PATH
//	mcp [flags] REQUESTS [-- ARGS]    a stdio session with vox-mcp
//	run [flags] PROG [ARGS]           vox or vox-mcp, bounded in time and memory
//	repeat [-e] N TEXT FILE           appends TEXT N times to FILE (for
//	                                  inputs too large to keep in a case;
//	                                  -e: TEXT holds Go escapes such as \n)
//	lsp-frame [-n N] BODY FILE        appends BODY's content to FILE as one
//	                                  message of the LSP base protocol
//	                                  (Content-Length header, then the
//	                                  bytes); -n: N messages, %d in BODY
//	                                  replaced by 0..N-1 (BODY at most 16 MiB)
//	sleep DURATION                    wait, e.g. to give an escaped process the time to act
//	http-serve [-env K=V] [ARGS]      start vox-mcp --http on a free loopback port
//	http [flags] METHOD [BODY]        one HTTP request to the server of http-serve
//	http-forge [flags] BODY           many POSTs with invented session ids
//	http-slow [flags]                 a POST whose body trickles in byte by byte
//	http-log [-wait REGEXP]           the log of the server of http-serve
//	session-id [-age D] VAR           an id signed with $VOX_MCP_SESSION_KEY
//	oauth-server VAR                  a real authorization server on loopback, its URL in $VAR
//	oauth-token [flags] SERVER VAR    $VAR = "Authorization: Bearer T", T from SERVER or forged
//	oauth-count SERVER                "introspections N": the requests SERVER's introspection endpoint got
//	free-port VAR                     a free loopback port, for a server whose URL is its audience
//
// mcp starts "vox-mcp ARGS" in the current directory, initializes, then
// sends every request of the file REQUESTS (one JSON object per line with
// "method" and optional "params"; blank lines and lines starting with #
// are skipped) and waits for each answer before the next. A line starting
// with @ is instead an action on the file system, done between two
// requests, as an attacker racing the server would (paths relative to the
// current directory, $VAR expanded from the script's environment):
//
//	@rename OLD NEW        rename OLD to NEW
//	@symlink TARGET LINK   create the symlink LINK pointing to TARGET
//	@remove PATH           remove a file, symlink or empty folder
//	@mkfifo PATH           create a named pipe
//	@sleep DURATION        wait, e.g. for a watcher to see the change
//	@touch N PATTERN       create N empty files, PATTERN with %d replaced by 0..N-1
//
// It writes one line per answer to stdout, "<method> <result or error as
// compact JSON>", and the server's log to stderr. It fails when an answer
// does not come within -timeout (default 20s: the server froze), when the
// server exits before the last answer (it crashed), or when -maxrss is
// given and the server's peak resident memory exceeded it (the server is
// killed as soon as it does, so a case never takes the machine's memory).
// Flags:
//
//	-bin PATH    the server to start instead of vox-mcp: a binary that
//	             vox gen app wrote and the case built
//	-timeout D   the longest wait for one answer
//	-maxrss N    the largest allowed peak RSS, in MiB
//	-env K=V     an extra environment variable of the server (repeatable)
//	-capabilities JSON  the client's capabilities at initialize (default {})
//	-answer FILE the result of every request the server sends the client
//	             (elicitation/create, sampling/createMessage): the JSON of
//	             FILE; without it such requests are never answered, as a
//	             client that leaves its user's question open
//	-pty FILE    start the server in a new session whose controlling
//	             terminal is a new pseudo-terminal, also its stderr, as
//	             when it is started from a terminal; write everything the
//	             terminal showed (the log, and the echo of any keystroke
//	             typed or injected into it) to FILE
//
// run runs PROG (vox or vox-mcp) with ARGS in the current directory, in
// the server's environment (below), like exec — stdout and stderr are kept
// for the next commands, and with ! it must exit non-zero — but fails the
// script, whatever !, when PROG runs longer than -timeout (default 20s) or
// its peak RSS exceeds -maxrss MiB (killed at once). -stdin FILE is its
// standard input (none otherwise).
//
// The server's environment is PATH, HOME ($WORK/home) and
// VOX_SKILL_ROOTS ($WORK/skills) plus any variable the script set with
// env whose name starts with VOX_, and the -env flags.
//
// http-serve starts "vox-mcp --http 127.0.0.1:0 ARGS" in the background,
// in the server's environment plus the -env flags, waits for the log line
// that gives its URL and sets $URL and $SERVER_PID; the server is stopped
// (SIGTERM) when the script ends, and http-log prints its log so far (with
// -wait REGEXP, once it matches: the log arrives through a pipe).
//
// http [-H 'K: V']... [-show HEADER]... [-setenv VAR=HEADER]...
// [-capture VAR=REGEXP]... [-timeout D] METHOD [BODY] sends one request to $URL (with Content-Type and Accept
// as an MCP client sends them) and prints "status N", each -show header
// the answer has ("Name: value"), and "body " followed by the body as
// compact JSON, the data of the first event of an event stream, or text.
// An event stream that sends nothing within -timeout (default 5s) prints
// "body (an event stream, still open)". -setenv VAR=HEADER sets $VAR to a
// header of the answer, such as the Mcp-Session-Id that initialize mints;
// -capture VAR=REGEXP sets $VAR to the first group of REGEXP in a JSON
// body, such as the taskId a task-augmented call answers.
//
// http-forge [-n N] [-H 'K: V']... [-maxgrowth MiB] BODY POSTs BODY 2N
// times with a new invented Mcp-Session-Id each (mcp-go's format and
// vox-mcp's), 16 at a time, and prints "status S: COUNT" per status. It
// reads the server's VmRSS after the first N and after the last N; with
// -maxgrowth it fails when the last N grew it by more than that.
//
// http-slow [-every D] [-bytes N] [-H 'K: V']... sends a POST announcing an
// N-byte body (default 40) and then the body one byte every D (default
// 500ms); meanwhile it sends one initialize on another connection. It
// prints "closed by the server before the body was complete" or "sent the
// whole body: the server held the connection for it", then "another
// client: status S".
//
// session-id [-age D] [-role N] VAR mints a session id with the key of
// $VOX_MCP_SESSION_KEY as if issued D ago, and sets $VAR to it.
//
// $CHECKOUT is the vox-mcp checkout under test (for vox gen app --replace).
// GOCACHE and GOMODCACHE are the machine's, GOPROXY=off, GOWORK=off and
// GOFLAGS empty: a case can exec go build on a generated app, offline,
// from the module cache that built the binaries; mcp -bin APP then drives
// the app it built.
//
// $PROBE is the path of syscallprobe (internal/sandbox/internal/syscallprobe),
// which a case copies into a skill folder to try, from a skill command,
// what the sandbox must deny.
//
// A case added with a fix must fail against vox-mcp without that fix (its
// author checks this before committing the fix); docs/security.md lists the
// cases by attack class.
package attacks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// binDir holds vox and vox-mcp, built by TestMain from checkoutDir.
var binDir, checkoutDir string

// goCache and goModCache are the Go build and module caches of the
// machine, which a case's go build uses.
var goCache, goModCache string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "vox-attacks-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	root, err := filepath.Abs("../..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"./cmd/vox", "./cmd/vox-mcp", "./internal/sandbox/internal/syscallprobe", "./e2e/attacks/internal/peakrss")
	build.Dir = root
	// The probe runs inside the sandbox, where only system folders are
	// bound: a static binary needs none of them.
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		return 1
	}
	binDir, checkoutDir = dir, root
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go env: %v\n", err)
		return 1
	}
	if f := strings.Fields(string(out)); len(f) == 2 {
		goCache, goModCache = f[0], f[1]
	}
	return m.Run()
}

// TestAttacks runs every case of testdata/.
func TestAttacks(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireUniqueNames:  true,
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			home := filepath.Join(e.WorkDir, "home")
			skills := filepath.Join(e.WorkDir, "skills")
			for _, d := range []string{home, skills} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
			}
			e.Setenv("HOME", home)
			e.Setenv("VOX_SKILL_ROOTS", skills)
			e.Setenv("PROBE", filepath.Join(binDir, "syscallprobe"))
			e.Setenv("CHECKOUT", checkoutDir)
			for k, v := range map[string]string{"GOCACHE": goCache, "GOMODCACHE": goModCache, "GOPROXY": "off", "GOWORK": "off", "GOFLAGS": "", "GOTOOLCHAIN": "local"} {
				e.Setenv(k, v)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mcp":           cmdMCP,
			"run":           cmdRun,
			"repeat":        cmdRepeat,
			"lsp-frame":     cmdLSPFrame,
			"sleep":         cmdSleep,
			"http-serve":    cmdHTTPServe,
			"http":          cmdHTTP,
			"http-forge":    cmdHTTPForge,
			"http-slow":     cmdHTTPSlow,
			"http-log":      cmdHTTPLog,
			"session-id":    cmdSessionID,
			"oauth-server":  cmdOAuthServer,
			"oauth-token":   cmdOAuthToken,
			"oauth-count":   cmdOAuthCount,
			"free-port":     cmdFreePort,
			"record-tamper": cmdRecordTamper,
		},
	})
}

// TestAttackCasesSayWhat requires every case to state the attack and
// what must hold, so the suite documents itself.
func TestAttackCasesSayWhat(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		head := string(src)
		if i := strings.Index(head, "\n-- "); i >= 0 {
			head = head[:i]
		}
		if !strings.HasPrefix(head, "# attack: ") || !strings.Contains(head, "\n# holds: ") {
			t.Errorf("%s: start with a line \"# attack: ...\" followed by \"# holds: ...\"", f)
		}
	}
}

// cmdRepeat is the repeat command (see the package comment).
func cmdRepeat(ts *testscript.TestScript, neg bool, args []string) {
	escapes := len(args) > 0 && args[0] == "-e"
	if escapes {
		args = args[1:]
	}
	if neg || len(args) != 3 {
		ts.Fatalf("usage: repeat [-e] N TEXT FILE")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 0 {
		ts.Fatalf("repeat: want a count, got %q", args[0])
	}
	text := args[1]
	if escapes {
		if text, err = strconv.Unquote(`"` + text + `"`); err != nil {
			ts.Fatalf("repeat -e: %q: %v", args[1], err)
		}
	}
	f, err := os.OpenFile(ts.MkAbs(args[2]), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	ts.Check(err)
	// Written through a buffer, never held whole: on Linux a child's peak
	// RSS (rusage, which run falls back to for a short run) counts this
	// process's memory at the time of the fork.
	w := bufio.NewWriterSize(f, 1<<16)
	for range n {
		if _, err = w.WriteString(text); err != nil {
			break
		}
	}
	ts.Check(errors.Join(err, w.Flush(), f.Close()))
}

func cmdLSPFrame(ts *testscript.TestScript, neg bool, args []string) {
	n := -1
	if len(args) > 1 && args[0] == "-n" {
		var err error
		if n, err = strconv.Atoi(args[1]); err != nil || n < 0 {
			ts.Fatalf("lsp-frame: want a count, got %q", args[1])
		}
		args = args[2:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: lsp-frame [-n N] BODY FILE")
	}
	body, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer body.Close()
	info, err := body.Stat()
	ts.Check(err)
	f, err := os.OpenFile(ts.MkAbs(args[1]), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	ts.Check(err)
	w := bufio.NewWriterSize(f, 1<<16)
	if n < 0 {
		// Streamed, never held whole (see cmdRepeat).
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", info.Size())
		_, err = io.Copy(w, body)
	} else {
		if info.Size() > 16<<20 {
			ts.Fatalf("lsp-frame -n: %s is over 16 MiB", args[0])
		}
		var pattern []byte
		pattern, err = io.ReadAll(body)
		ts.Check(err)
		for i := range n {
			msg := bytes.ReplaceAll(pattern, []byte("%d"), []byte(strconv.Itoa(i)))
			fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(msg))
			if _, err = w.Write(msg); err != nil {
				break
			}
		}
	}
	ts.Check(errors.Join(err, w.Flush(), f.Close()))
}

// serverEnvNames are the variables of the script passed to the server.
var serverEnvNames = []string{
	"PATH", "HOME", "TMPDIR", "VOX_SKILL_ROOTS", "VOX_SKILL_SANDBOX", "VOX_LOG",
	"VOX_MCP_TOKEN", "VOX_MCP_READ_TOKEN", "VOX_MCP_WORKSPACE_TOOLS", "VOX_MCP_ALLOW_NETWORK",
	"VOX_MCP_SESSION_KEY", "VOX_MCP_SESSION_LIFETIME", "VOX_MCP_HTTP_READ_TIMEOUT", "VOX_SKILL_SANDBOX_REQUIRE",
}

type envFlags []string

func (e *envFlags) String() string     { return strings.Join(*e, " ") }
func (e *envFlags) Set(v string) error { *e = append(*e, v); return nil }

// cmdSleep is the sleep command: sleep DURATION.
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}

// cmdMCP is the mcp command (see the package comment).
func cmdMCP(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("mcp does not support !: assert on its output instead")
	}
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	timeout := fs.Duration("timeout", 20*time.Second, "the longest wait for one answer")
	maxRSS := fs.Int64("maxrss", 0, "the largest allowed peak RSS in MiB (0: unchecked)")
	bin := fs.String("bin", "", "the server binary to start instead of vox-mcp")
	var extra envFlags
	fs.Var(&extra, "env", "K=V for the server")
	ptyOut := fs.String("pty", "", "run the server under a new pseudo-terminal; write what it showed to `FILE`")
	caps := fs.String("capabilities", "{}", "the client's capabilities")
	answerFile := fs.String("answer", "", "the result of the server's requests to the client")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		ts.Fatalf("mcp: %v", err)
	}
	rest := fs.Args()
	if len(rest) == 0 {
		ts.Fatalf("usage: mcp [-bin PATH] [-timeout D] [-maxrss MiB] [-env K=V] REQUESTS [-- ARGS]")
	}
	requests, err := os.ReadFile(ts.MkAbs(rest[0]))
	ts.Check(err)
	var serverArgs []string
	if len(rest) > 1 {
		if rest[1] != "--" {
			ts.Fatalf("mcp: want -- before the server's arguments")
		}
		serverArgs = rest[2:]
	}
	server := filepath.Join(binDir, "vox-mcp")
	if *bin != "" {
		server = ts.MkAbs(*bin)
	}
	cmd := exec.Command(server, serverArgs...)
	cmd.Dir = ts.MkAbs(".")
	for _, name := range serverEnvNames {
		if v := ts.Getenv(name); v != "" {
			cmd.Env = append(cmd.Env, name+"="+v)
		}
	}
	cmd.Env = append(cmd.Env, extra...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var master, slave *os.File
	if *ptyOut != "" {
		master, slave = openPTY(ts)
		cmd.Stderr = slave
		// Child descriptor 2 (stderr) becomes the controlling terminal.
		cmd.SysProcAttr = controllingTerminal(2)
	}
	var answer json.RawMessage
	if *answerFile != "" {
		b, err := os.ReadFile(ts.MkAbs(*answerFile))
		ts.Check(err)
		answer = bytes.TrimSpace(b)
	}
	pipe, err := cmd.StdinPipe()
	ts.Check(err)
	// The reader answers the server's requests while the script sends its
	// own: the writes take turns.
	stdin := &lockedWriter{w: pipe}
	stdout, err := cmd.StdoutPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	shown := make(chan []byte, 1)
	if master != nil {
		slave.Close()
		go func() {
			// EIO once no process holds the terminal any more.
			b, _ := io.ReadAll(master)
			shown <- b
		}()
	}
	overRSS := watchRSS(cmd.Process, *maxRSS)
	exited := make(chan struct{})
	answers := make(chan map[string]json.RawMessage, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var msg map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &msg) != nil || msg["id"] == nil {
				continue
			}
			if msg["method"] != nil { // a request of the server to the client
				if answer != nil {
					reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg["id"], "result": answer})
					stdin.Write(append(reply, '\n'))
				}
				continue
			}
			answers <- msg
		}
		close(answers)
	}()
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		ts.Stderr().Write(stderr.Bytes())
		if master != nil {
			var screen []byte
			select {
			case screen = <-shown:
			case <-time.After(10 * time.Second):
				// Something still holds the terminal; take what came.
				master.Close()
				screen = <-shown
			}
			master.Close()
			ts.Stderr().Write(screen)
			ts.Check(os.WriteFile(ts.MkAbs(*ptyOut), screen, 0o644))
		}
	}()

	id := 0
	send := func(method string, params json.RawMessage) {
		id++
		msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
		if len(params) > 0 {
			msg["params"] = params
		}
		b, _ := json.Marshal(msg)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			ts.Fatalf("mcp: sending %s: the server is gone (%v)\n%s", method, err, stderr.String())
		}
	}
	await := func(method string) map[string]json.RawMessage {
		deadline := time.After(*timeout)
		for {
			select {
			case msg, ok := <-answers:
				if !ok {
					<-exited
					if peak := overRSS.Load(); peak > 0 {
						ts.Fatalf("mcp: killed the server while it waited for %s: its RSS reached %d MiB, over the allowed %d MiB", method, peak>>20, *maxRSS)
					}
					ts.Fatalf("mcp: the server exited before answering %s (%v): it crashed\n%s", method, waitErr, stderr.String())
				}
				if string(msg["id"]) == strconv.Itoa(id) {
					return msg
				}
			case <-deadline:
				ts.Fatalf("mcp: no answer to %s within %v: the server froze\n%s", method, *timeout, stderr.String())
			}
		}
	}
	send("initialize", json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":`+*caps+`,"clientInfo":{"name":"attacks","version":"1"}}`))
	await("initialize")
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		ts.Fatalf("mcp: %v", err)
	}
	for i, line := range strings.Split(string(requests), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "@") {
			fileAction(ts, fmt.Sprintf("%s:%d", rest[0], i+1), line)
			continue
		}
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil || req.Method == "" {
			ts.Fatalf("%s:%d: want a JSON object with a method: %v", rest[0], i+1, err)
		}
		send(req.Method, req.Params)
		msg := await(req.Method)
		body := msg["result"]
		if body == nil {
			body = msg["error"]
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, body); err != nil {
			compact.Write(body)
		}
		fmt.Fprintf(ts.Stdout(), "%s %s\n", req.Method, compact.String())
	}
	if *maxRSS > 0 {
		if peak := peakRSS(cmd.Process.Pid); peak > *maxRSS<<20 {
			ts.Fatalf("mcp: the server's peak RSS was %d MiB, over the allowed %d MiB", peak>>20, *maxRSS)
		}
	}
}

// lockedWriter serialises the writes to the server's stdin.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// watchRSS kills p as soon as its peak RSS exceeds maxMiB (0: never) and
// then holds the peak seen, in bytes.
func watchRSS(p *os.Process, maxMiB int64) *atomic.Int64 {
	var over atomic.Int64
	if maxMiB <= 0 {
		return &over
	}
	go func() {
		for {
			peak := peakRSS(p.Pid)
			if peak == 0 {
				return // gone
			}
			if peak > maxMiB<<20 {
				over.Store(peak)
				p.Kill()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return &over
}

// cmdRun is the run command (see the package comment).
func cmdRun(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	timeout := fs.Duration("timeout", 20*time.Second, "the longest run")
	maxRSS := fs.Int64("maxrss", 0, "the largest allowed peak RSS in MiB (0: unchecked)")
	stdin := fs.String("stdin", "", "a file to give PROG as its standard input")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		ts.Fatalf("run: %v", err)
	}
	rest := fs.Args()
	if len(rest) == 0 || (rest[0] != "vox" && rest[0] != "vox-mcp") {
		ts.Fatalf("usage: run [-timeout D] [-maxrss MiB] [-stdin FILE] vox|vox-mcp [ARGS]")
	}
	prog := filepath.Join(binDir, rest[0])
	cmd := exec.Command(prog, rest[1:]...)
	// The peak wait4 reports for a child of this process counts this
	// process's own high-water RSS (see internal/peakrss): peakrss runs
	// PROG, bounds it and reports the peak that is PROG's own.
	var peakFile string
	if *maxRSS > 0 {
		f, err := os.CreateTemp("", "peakrss-")
		ts.Check(err)
		f.Close()
		peakFile = f.Name()
		cmd = exec.Command(filepath.Join(binDir, "peakrss"), append([]string{peakFile, strconv.FormatInt(*maxRSS<<20, 10), prog}, rest[1:]...)...)
	}
	cmd.Dir = ts.MkAbs(".")
	if *stdin != "" {
		f, err := os.Open(ts.MkAbs(*stdin))
		ts.Check(err)
		defer f.Close()
		cmd.Stdin = f
	}
	for _, name := range serverEnvNames {
		if v := ts.Getenv(name); v != "" {
			cmd.Env = append(cmd.Env, name+"="+v)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ts.Check(cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(*timeout):
		cmd.Process.Kill()
		<-done
		ts.Fatalf("run: %s did not finish within %v", rest[0], *timeout)
	}
	ts.Stdout().Write(stdout.Bytes())
	ts.Stderr().Write(stderr.Bytes())
	if *maxRSS > 0 {
		data, rerr := os.ReadFile(peakFile)
		os.Remove(peakFile)
		peak, perr := strconv.ParseInt(string(data), 10, 64)
		if rerr != nil || perr != nil {
			ts.Fatalf("run: peakrss reported no peak for %s: %v %v", rest[0], rerr, perr)
		}
		if peak > *maxRSS<<20 {
			ts.Fatalf("run: %s's peak RSS reached %d MiB, over the allowed %d MiB", rest[0], peak>>20, *maxRSS)
		}
	}
	switch {
	case err != nil && !neg:
		ts.Fatalf("run: %s: %v", rest[0], err)
	case err == nil && neg:
		ts.Fatalf("run: %s succeeded unexpectedly", rest[0])
	}
}

// peakRSS reads a live process's peak resident set size (VmHWM) in bytes;
// 0 when it cannot be read.
func peakRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// fileAction does one @ line of a requests file (see the package comment).
func fileAction(ts *testscript.TestScript, where, line string) {
	f := strings.Fields(os.Expand(strings.TrimPrefix(line, "@"), ts.Getenv))
	var err error
	switch {
	case len(f) == 3 && f[0] == "rename":
		err = os.Rename(ts.MkAbs(f[1]), ts.MkAbs(f[2]))
	case len(f) == 3 && f[0] == "symlink":
		err = os.Symlink(f[1], ts.MkAbs(f[2]))
	case len(f) == 2 && f[0] == "remove":
		err = os.Remove(ts.MkAbs(f[1]))
	case len(f) == 2 && f[0] == "mkfifo":
		err = exec.Command("mkfifo", ts.MkAbs(f[1])).Run()
	case len(f) == 2 && f[0] == "sleep":
		var d time.Duration
		if d, err = time.ParseDuration(f[1]); err == nil {
			time.Sleep(d)
		}
	case len(f) == 3 && f[0] == "touch" && strings.Count(f[2], "%d") == 1:
		n, nerr := strconv.Atoi(f[1])
		if nerr != nil {
			ts.Fatalf("%s: @touch N PATTERN: %v", where, nerr)
		}
		for i := 0; i < n && err == nil; i++ {
			err = os.WriteFile(ts.MkAbs(fmt.Sprintf(f[2], i)), nil, 0o644)
		}
	default:
		ts.Fatalf("%s: want @rename OLD NEW, @symlink TARGET LINK, @remove PATH, @mkfifo PATH, @sleep DURATION or @touch N PATTERN, got %q", where, line)
	}
	if err != nil {
		ts.Fatalf("%s: %v", where, err)
	}
}
