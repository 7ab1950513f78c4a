package webhook

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bnpl-cli/bnpl/internal/wire"
)

// HeaderError is a static header refused before anything was sent. Its
// message may quote the title, never the value, which is a secret.
type HeaderError struct {
	Problem string
	Advice  string
}

func (e *HeaderError) Error() string { return e.Problem }

// Hint tells what to do instead.
func (e *HeaderError) Hint() string { return e.Advice }

// ExitCode is 2: nothing was sent.
func (e *HeaderError) ExitCode() int { return exitUsage }

// IsToken reports whether s is an HTTP token (RFC 9110, section 5.6.2):
// one or more tchar, the only form a header name may take.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTchar(s[i]) {
			return false
		}
	}
	return true
}

func isTchar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

// CheckHeaderTitle applies the rules of header.title: an HTTP token of at
// most 128 characters.
func CheckHeaderTitle(title string) error {
	const advice = "use a header name made of letters, digits and -, such as X-Webhook-Secret"
	switch {
	case title == "":
		return &HeaderError{Problem: "the header title is empty", Advice: advice}
	case len(title) > wire.MaxHeaderTitle:
		return &HeaderError{Problem: fmt.Sprintf("the header title is %d characters; at most %d are allowed", len(title), wire.MaxHeaderTitle), Advice: advice}
	case !IsToken(title):
		return &HeaderError{Problem: fmt.Sprintf("the header title %q is not an HTTP token (no spaces, colons or quotes)", title), Advice: advice}
	}
	return nil
}

// CheckHeaderValue applies the rules of header.value: not empty, at most
// 1024 characters, and nothing that would end the header line.
func CheckHeaderValue(value string) error {
	switch {
	case value == "":
		return &HeaderError{Problem: "the header value is empty", Advice: "give a secret value, e.g. from `openssl rand -hex 32`"}
	case utf8.RuneCountInString(value) > wire.MaxHeaderValue:
		return &HeaderError{Problem: fmt.Sprintf("the header value is longer than %d characters", wire.MaxHeaderValue), Advice: "use a shorter secret"}
	case strings.ContainsAny(value, "\r\n\x00"):
		return &HeaderError{Problem: "the header value contains a line break or NUL", Advice: "use a single-line secret"}
	}
	return nil
}

// setByBnpl are the headers a bnpl sandbox sets on every delivery, or
// that HTTP itself owns (Host, Content-Length and the hop-by-hop ones);
// any title under the Bnpl-Sandbox- prefix is bnpl's too.
var setByBnpl = []string{"Content-Type", "User-Agent", "Host", "Content-Length", "Transfer-Encoding", "Connection",
	"Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Upgrade"}

// CheckOwnTitle refuses a static header titled as a header bnpl sets: the
// delivery would carry bnpl's value or the secret in its place, and a
// forward off this machine would take the secret for a header that
// describes the notification.
func CheckOwnTitle(title string) error {
	clash := strings.HasPrefix(strings.ToLower(title), "bnpl-sandbox-")
	for _, h := range setByBnpl {
		clash = clash || strings.EqualFold(title, h)
	}
	if clash {
		return &HeaderError{Problem: fmt.Sprintf("the header title %q is a header bnpl sets on every delivery", title),
			Advice: "use a title of your own, such as X-Webhook-Secret"}
	}
	return nil
}
