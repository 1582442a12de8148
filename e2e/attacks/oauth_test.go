package attacks

import (
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vox-lang/vox-mcp/internal/oauthtest"
)

// authServers are the authorization servers of the running scripts, by
// script and by the variable holding their URL.
var authServers sync.Map // struct{*testscript.TestScript; string} -> *oauthtest.Server

type authServerKey struct {
	ts   *testscript.TestScript
	name string
}

// cmdOAuthServer is oauth-server VAR: it starts a real authorization
// server on loopback (internal/oauthtest: zitadel/oidc's OpenID provider)
// and sets $VAR to its issuer URL. It stops when the script ends.
func cmdOAuthServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: oauth-server VAR")
	}
	as, err := oauthtest.Start()
	ts.Check(err)
	authServers.Store(authServerKey{ts, args[0]}, as)
	ts.Defer(func() { authServers.Delete(authServerKey{ts, args[0]}); as.Close() })
	ts.Setenv(args[0], as.URL)
}

// cmdOAuthToken is oauth-token [-client ID] [-resource URL] [-scope S]...
// [-expired | -exp D] [-forge KIND] SERVER VAR: it sets $VAR to the
// header "Authorization: Bearer TOKEN" with a client-credentials token of
// client ID (default oauthtest.ClientID; oauthtest.OpaqueClientID's are
// opaque, oauthtest.OtherClientID's another subject's) from the server of
// oauth-server SERVER for resource URL (default $URL) with the scopes;
// -expired mints one with the server's key that expired 5 minutes ago,
// -exp one that expires D from now (D may be negative), -forge makes a
// forgery of the token (oauthtest.Forgeries).
func cmdOAuthToken(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("oauth-token", flag.ContinueOnError)
	client := fs.String("client", oauthtest.ClientID, "the client whose token to get")
	resource := fs.String("resource", "", "the resource the token is for (default $URL)")
	var scopes headerFlags
	fs.Var(&scopes, "scope", "a scope to ask for")
	expired := fs.Bool("expired", false, "mint a token that expired 5 minutes ago")
	exp := fs.Duration("exp", 0, "mint a token that expires this long from now")
	forge := fs.String("forge", "", "a forgery of the token")
	fs.SetOutput(io.Discard)
	if neg || fs.Parse(args) != nil || fs.NArg() != 2 {
		ts.Fatalf("usage: oauth-token [-client ID] [-resource URL] [-scope S]... [-expired | -exp D] [-forge KIND] SERVER VAR")
	}
	if *expired {
		*exp = -5 * time.Minute
	}
	v, ok := authServers.Load(authServerKey{ts, fs.Arg(0)})
	if !ok {
		ts.Fatalf("oauth-token: no oauth-server %s", fs.Arg(0))
	}
	as := v.(*oauthtest.Server)
	if *resource == "" {
		*resource = serverURL(ts)
	}
	var tok string
	var err error
	if *exp != 0 {
		c := as.Claims(*resource, "vox:full")
		c["sub"] = *client
		c["exp"] = time.Now().Add(*exp).Unix()
		tok, err = as.Mint(c)
	} else {
		tok, err = as.TokenOf(*client, *resource, scopes...)
	}
	ts.Check(err)
	if *forge != "" {
		tok, err = as.Forge(*forge, tok)
		ts.Check(err)
	}
	ts.Setenv(fs.Arg(1), "Authorization: Bearer "+tok)
}

// cmdFreePort is free-port VAR: it sets $VAR to a TCP port free on
// 127.0.0.1 a moment ago, for a server whose address must be known
// before it starts (its OAuth audience).
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: free-port VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := ln.Addr().(*net.TCPAddr).Port
	ts.Check(ln.Close())
	ts.Setenv(args[0], strconv.Itoa(port))
}

// cmdOAuthCount is oauth-count SERVER: it writes
// "introspections N" to stdout, N the requests the introspection
// endpoint of the server of oauth-server SERVER got so far.
func cmdOAuthCount(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: oauth-count SERVER")
	}
	v, ok := authServers.Load(authServerKey{ts, args[0]})
	if !ok {
		ts.Fatalf("oauth-count: no oauth-server %s", args[0])
	}
	fmt.Fprintf(ts.Stdout(), "introspections %d\n", v.(*oauthtest.Server).Introspections())
}
