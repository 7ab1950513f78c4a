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
// "****" alone otherwise.
func MaskValue(v string) string {
	if len(v) > 8 {
		return "****" + v[len(v)-4:]
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
