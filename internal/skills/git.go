package skills

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

var (
	schemeURL = regexp.MustCompile(`^(https|ssh|git)://`)
	scpURL    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*@[A-Za-z0-9][A-Za-z0-9.-]*:.`)
)

// IsGitURL reports whether source names a git repository: a URL with
// scheme https, ssh or git, or the scp form user@host:path. Anything else,
// file:// and git's ext:: transports included, is a local folder.
func IsGitURL(source string) bool {
	return schemeURL.MatchString(source) || scpURL.MatchString(source)
}

// cloneTimeout bounds a clone that hangs on a slow or silent server.
const cloneTimeout = 2 * time.Minute

// gitEnvPassThrough are the variables a clone may inherit: how to reach the
// network (proxies, CA certificates), never credentials or git settings.
var gitEnvPassThrough = []string{
	"PATH", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy",
	"NO_PROXY", "no_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR",
}

// gitClone makes a shallow clone of url into dest. git runs with a
// scrubbed environment (a throw-away HOME, no system or global
// configuration, no prompts), without hooks or templates, and may only
// speak https, ssh and git: a clone runs nothing of the repository.
func gitClone(ctx context.Context, url, dest, home string) error {
	if _, err := exec.LookPath("git"); err != nil {
		return errors.New("git is not installed: install git, or add the skill from a local folder")
	}
	ctx, cancel := context.WithTimeout(ctx, cloneTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git",
		"-c", "core.hooksPath=/dev/null",
		"-c", "core.fsmonitor=false",
		"-c", "protocol.allow=never",
		"-c", "protocol.https.allow=always",
		"-c", "protocol.ssh.allow=always",
		"-c", "protocol.git.allow=always",
		"-c", "transfer.fsckObjects=true",
		"-c", "submodule.recurse=false",
		"clone", "--depth", "1", "--no-tags", "--single-branch", "--template=", "--quiet",
		"--", url, dest)
	env := []string{
		"HOME=" + home,
		"LANG=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_SSH_COMMAND=ssh -o BatchMode=yes",
	}
	for _, k := range gitEnvPassThrough {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	cmd.Env = env
	cmd.Dir = home
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{buf: &stderr, max: 8 << 10}
	// git starts helpers (git-remote-https, ssh): kill the whole group.
	killGroupOnCancel(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		why := strings.TrimSpace(stderr.String())
		if why == "" {
			why = err.Error()
		}
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			why = "no answer within " + cloneTimeout.String()
		case ctx.Err() != nil:
			why = "cancelled"
		}
		return fmt.Errorf("git clone %s failed: %s: check the URL and that the repository is reachable", url, why)
	}
	return nil
}

// limitedWriter keeps the first max bytes written to it.
type limitedWriter struct {
	buf *bytes.Buffer
	max int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
