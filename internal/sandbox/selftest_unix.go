//go:build linux || darwin

package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"path/filepath"
	"time"
)

// newProbeEnv prepares what the host probes need (selftest_probe.go): a
// folder of its own under the temporary folder with a skill folder
// holding probe.txt and, beside it, a folder "outside" holding a secret;
// the user's home; and a listener on the loopback interface, which
// connect turns into the command that tries to reach it. cleanup removes
// all of it.
func newProbeEnv(connect func(port int) string) (env *probeEnv, cleanup func(), err error) {
	base, err := os.MkdirTemp("", "vox-sandbox-selftest-")
	if err != nil {
		return nil, nil, err
	}
	var ln net.Listener
	cleanup = func() {
		if ln != nil {
			ln.Close()
		}
		removeTree(base)
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	if base, err = filepath.EvalSymlinks(base); err != nil {
		return nil, nil, err
	}
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, err
	}
	env = &probeEnv{
		Outside:   filepath.Join(base, "outside"),
		Secret:    "secret-" + hex.EncodeToString(nonce),
		SkillDir:  filepath.Join(base, "skill"),
		SkillFile: "probe.txt",
		SkillText: "skill-" + hex.EncodeToString(nonce[:8]),
	}
	if env.Home, err = os.UserHomeDir(); err != nil {
		return nil, nil, err
	}
	for _, d := range []string{env.Outside, env.SkillDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(env.Outside, "secret"), []byte(env.Secret+"\n"), 0o600); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(env.SkillDir, env.SkillFile), []byte(env.SkillText+"\n"), 0o644); err != nil {
		return nil, nil, err
	}
	if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, nil, err
	}
	tcp := ln.(*net.TCPListener)
	env.Connect = connect(tcp.Addr().(*net.TCPAddr).Port)
	// A connection the command made is in the listener's backlog before
	// the command ends: accepting with a short deadline finds it.
	env.Connected = func() bool {
		_ = tcp.SetDeadline(time.Now().Add(200 * time.Millisecond))
		c, err := tcp.Accept()
		if err != nil {
			return false
		}
		c.Close()
		return true
	}
	env.Exists = func(p string) bool {
		_, err := os.Lstat(p)
		return !errors.Is(err, os.ErrNotExist)
	}
	env.Alive = func(pid int) bool {
		// SIGKILL lands asynchronously: give it a few seconds.
		for range 100 {
			if !processLives(pid) {
				return false
			}
			time.Sleep(50 * time.Millisecond)
		}
		return true
	}
	return env, cleanup, nil
}
