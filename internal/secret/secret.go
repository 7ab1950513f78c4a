// Package secret masks secret keys and signing-header values wherever they
// could otherwise reach a person's screen, a log or a snapshot.
package secret

import "strings"

// MaskKey shows a secret key by its kind prefix and last four characters
// only: "sk_test_****abcd", "sk_****abcd". Short or unknown keys become
// "****" so nothing of them leaks.
func MaskKey(key string) string {
	if key == "" {
		return ""
	}
	prefix := ""
	switch {
	case strings.HasPrefix(key, "sk_test_"):
		prefix = "sk_test_"
	case strings.HasPrefix(key, "sk_"):
		prefix = "sk_"
	}
	rest := key[len(prefix):]
	if len(rest) <= 8 {
		return prefix + "****"
	}
	return prefix + "****" + rest[len(rest)-4:]
}

// MaskValue masks a webhook header value the way the service does: "****"
// followed by the last four characters when the value is longer than eight,
// "****" alone otherwise. Characters, not bytes: a short non-ASCII secret
// must not show half of itself, nor a last "character" cut mid-rune.
func MaskValue(v string) string {
	runes := []rune(v)
	if len(runes) > 8 {
		return "****" + string(runes[len(runes)-4:])
	}
	return "****"
}

// MaskAuthorization masks the key inside an Authorization header value.
func MaskAuthorization(h string) string {
	scheme, key, ok := strings.Cut(h, " ")
	if !ok {
		return MaskKey(h)
	}
	return scheme + " " + MaskKey(key)
}

// RedactURL drops any user and password from a URL before it is shown,
// whether or not the rest of it parses.
func RedactURL(raw string) string {
	scheme := strings.Index(raw, "://")
	if scheme < 0 {
		return raw
	}
	rest := raw[scheme+3:]
	hostEnd := strings.IndexAny(rest, "/?#")
	if hostEnd < 0 {
		hostEnd = len(rest)
	}
	at := strings.LastIndex(rest[:hostEnd], "@")
	if at < 0 {
		return raw
	}
	return raw[:scheme+3] + "****@" + rest[at+1:]
}
