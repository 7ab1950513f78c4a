package config

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Key prefixes. A test key's prefix also starts like a live key's, so the
// test prefix must be checked first.
const (
	testKeyPrefix = "sk_test_"
	liveKeyPrefix = "sk_"
)

// maxKeyLine bounds what ReadKey accepts, so that a file piped by mistake is
// refused instead of read whole.
const maxKeyLine = 4096

// KeyKind tells a key's kind from its prefix: sk_test_… is a test key, any
// other sk_… a live key. ok is false for anything else, including a bare
// prefix with nothing after it and a key with spaces or control characters
// inside, which could not travel in an Authorization header.
func KeyKind(key string) (live bool, ok bool) {
	if strings.ContainsFunc(key, isSpaceOrControl) {
		return false, false
	}
	switch {
	case strings.HasPrefix(key, testKeyPrefix) && len(key) > len(testKeyPrefix):
		return false, true
	case strings.HasPrefix(key, liveKeyPrefix) && len(key) > len(liveKeyPrefix) && !strings.HasPrefix(key, testKeyPrefix):
		return true, true
	}
	return false, false
}

// ReadKey reads one key from the first line of r, for `bnpl login
// --with-key`. It reads byte by byte so that nothing after the line is
// consumed: a caller may read more from the same stream. Its errors never
// quote what was read, since that may be a key pasted into the wrong place.
func ReadKey(r io.Reader) (string, error) {
	var line []byte
	var one [1]byte
	for {
		n, err := r.Read(one[:])
		if n == 1 {
			if one[0] == '\n' {
				break
			}
			if len(line) >= maxKeyLine {
				return "", &InvalidError{Field: "secret_key",
					Problem: fmt.Sprintf("the key on stdin is longer than %d bytes", maxKeyLine),
					Advice:  "pipe only the key, e.g. `printf '%s\\n' \"$KEY\" | bnpl login --with-key ...`"}
			}
			line = append(line, one[0])
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("read key from stdin: %w", err)
		}
	}
	key := strings.TrimSpace(string(line))
	if key == "" {
		return "", &InvalidError{Field: "secret_key", Problem: "no key on stdin",
			Advice: "pipe the key in, e.g. `printf '%s\\n' \"$KEY\" | bnpl login --with-key ...`"}
	}
	if _, ok := KeyKind(key); !ok {
		return "", &InvalidError{Field: "secret_key",
			Problem: "the text on stdin is not a secret key: keys start with sk_test_ (test) or sk_ (live)",
			Advice:  "copy the secret key (not the public pk_ key) from the merchant dashboard"}
	}
	return key, nil
}

func isSpaceOrControl(r rune) bool {
	return r <= ' ' || r == 0x7f
}

// ValidRegion reports whether r is one of the service's regions: "ae"
// (the UAE and Kuwait) or "sa" (KSA).
func ValidRegion(r string) bool {
	return r == "ae" || r == "sa"
}

// RegionBaseURL is the service's base address for a region.
func RegionBaseURL(region string) (string, bool) {
	switch region {
	case "ae":
		return "https://api.tabby.ai", true
	case "sa":
		return "https://api.tabby.sa", true
	}
	return "", false
}

// RegionCurrencies lists the currencies a region's merchants sell in, for
// validation and `bnpl doctor`. Kuwait is served by the ae address, hence
// KWD there. The slice is fresh on each call; callers may keep it.
func RegionCurrencies(region string) []string {
	switch region {
	case "ae":
		return []string{"AED", "KWD"}
	case "sa":
		return []string{"SAR"}
	}
	return nil
}

// EmbeddedMerchant is one of the merchants the sandbox knows without being
// told. Its keys are public: they work only against the sandbox.
type EmbeddedMerchant struct {
	Code     string
	Region   string
	Currency string
	TestKey  string
	LiveKey  string
}

// EmbeddedMerchants lists the sandbox's built-in merchants, the default one
// (ae-sandbox) first. The slice is fresh on each call.
func EmbeddedMerchants() []EmbeddedMerchant {
	return []EmbeddedMerchant{
		{Code: "ae-sandbox", Region: "ae", Currency: "AED", TestKey: "sk_test_ae_sandbox", LiveKey: "sk_ae_sandbox"},
		{Code: "kw-sandbox", Region: "ae", Currency: "KWD", TestKey: "sk_test_kw_sandbox", LiveKey: "sk_kw_sandbox"},
		{Code: "sa-sandbox", Region: "sa", Currency: "SAR", TestKey: "sk_test_sa_sandbox", LiveKey: "sk_sa_sandbox"},
	}
}

// EmbeddedBaseURL is the loopback address the sandbox listens on for a
// region (`bnpl sandbox serve` defaults); the embedded sandbox uses the same
// addresses so that URLs look alike in-process and over the wire.
func EmbeddedBaseURL(region string) (string, bool) {
	switch region {
	case "ae":
		return "http://127.0.0.1:8700", true
	case "sa":
		return "http://127.0.0.1:8701", true
	}
	return "", false
}

// embeddedMerchant finds a built-in merchant by code.
func embeddedMerchant(code string) (EmbeddedMerchant, bool) {
	for _, m := range EmbeddedMerchants() {
		if m.Code == code {
			return m, true
		}
	}
	return EmbeddedMerchant{}, false
}

// embeddedMerchantByKey finds the built-in merchant a sandbox key belongs
// to, and whether the key is its live one.
func embeddedMerchantByKey(key string) (m EmbeddedMerchant, live bool, ok bool) {
	for _, m := range EmbeddedMerchants() {
		switch key {
		case m.TestKey:
			return m, false, true
		case m.LiveKey:
			return m, true, true
		}
	}
	return EmbeddedMerchant{}, false, false
}

// embeddedRegionDefault is the built-in merchant that stands for a region
// when nothing names one.
func embeddedRegionDefault(region string) (EmbeddedMerchant, bool) {
	switch region {
	case "ae":
		return embeddedMerchant("ae-sandbox")
	case "sa":
		return embeddedMerchant("sa-sandbox")
	}
	return EmbeddedMerchant{}, false
}
