package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRequireTokenPrincipals: without tokens the request goes on as it
// came (not copied) and is "anonymous" once the endpoint marks it as
// HTTP; with a token, the token's principal; outside HTTP, in-process.
func TestRequireTokenPrincipals(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	cases := []struct {
		auth   Auth
		header string
		want   string
		copied bool
	}{
		{Auth{}, "", PrincipalAnonymous, false},
		{Auth{Token: "full-secret"}, "Bearer full-secret", PrincipalFullToken, true},
		{Auth{Token: "full-secret", ReadToken: "read-secret"}, "Bearer read-secret", PrincipalReadToken, true},
	}
	for _, c := range cases {
		in := httptest.NewRequest(http.MethodPost, EndpointPath, nil)
		if c.header != "" {
			in.Header.Set("Authorization", c.header)
		}
		var got, before string
		var same bool
		s.requireToken(c.auth, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			same = r == in
			before = httpPrincipal(r.Context())
			got = PrincipalFrom(withHTTP(r.Context()))
		})).ServeHTTP(httptest.NewRecorder(), in)
		if got != c.want || before != c.want || same == c.copied {
			t.Errorf("%+v: principal %q (before the mark %q), request not copied %v; want %q, copied %v", c.auth, got, before, same, c.want, c.copied)
		}
	}
	if p := PrincipalFrom(context.Background()); p != PrincipalInProcess {
		t.Errorf("no transport: %q, want %q", p, PrincipalInProcess)
	}
}
