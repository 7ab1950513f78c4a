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

// RedactURL masks the secrets a URL may carry before it is shown, whether
// or not the rest of it parses: the user and password ("https://****@host")
// and every query value ("?token=****"). It is for addresses that are
// configuration (a base URL, a webhook URL typed by a person); RedactURLs
// finds URLs in running text.
func RedactURL(raw string) string {
	raw = RedactUserinfo(raw)
	q := strings.IndexByte(raw, '?')
	if q < 0 {
		return raw
	}
	query, fragment := raw[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, fragment = query[:h], query[h:]
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		if k, v, ok := strings.Cut(p, "="); ok && v != "" {
			parts[i] = k + "=****"
		}
	}
	return raw[:q+1] + strings.Join(parts, "&") + fragment
}

// RedactUserinfo drops any user and password from a URL, whether or not
// the rest of it parses.
func RedactUserinfo(raw string) string {
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
