package har

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// Redactor replaces a buyer's data in JSON bodies with stand-ins: under
// every "buyer" object the name, email, phone and date of birth, under
// every "shipping_address" the address, city and zip. The stand-in is a
// keyed hash of the value, so the same value always gets the same
// stand-in (in every process that shares the key, the recorder and a
// listen adding notifications alike), and the file cannot be searched for
// a known buyer without the key. Each stand-in keeps the shape the
// service checks: an email stays an email, a phone keeps its country code
// and its length, a date stays a date.
//
// The service's documented test buyers are not personal data and decide
// what the service does (otp.success@tabby.ai is approved, a phone ending
// 0002 is rejected at pre-scoring), so their emails and phones are kept:
// a redacted recording still replays to the same outcomes.
type Redactor struct {
	key []byte

	mu sync.Mutex
	// seen maps each buyer value replaced so far to its stand-in: the
	// same value is replaced wherever else it turns up (a description,
	// meta, a URL, a header).
	seen map[string]string
}

// NewRedactor returns a redactor keyed by key.
func NewRedactor(key []byte) *Redactor {
	return &Redactor{key: append([]byte(nil), key...), seen: map[string]string{}}
}

// everywhere are the buyer fields whose values are replaced wherever else
// they occur; a city or a zip is too common a text to chase.
var everywhere = map[string]bool{"name": true, "email": true, "phone": true, "dob": true, "address": true}

// minSeen is the shortest value replaced wherever it turns up: shorter
// ones (a zip of "0", a city "Ur") would hit unrelated text.
const minSeen = 4

// Text replaces in s every buyer value replaced so far by its stand-in,
// the longest first.
func (r *Redactor) Text(s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.seen) == 0 || s == "" {
		return s
	}
	olds := make([]string, 0, len(r.seen))
	for old := range r.seen {
		if strings.Contains(s, old) {
			olds = append(olds, old)
		}
	}
	sort.Slice(olds, func(i, j int) bool { return len(olds[i]) > len(olds[j]) })
	for _, old := range olds {
		s = strings.ReplaceAll(s, old, r.seen[old])
	}
	return s
}

func (r *Redactor) remember(old, stand string) {
	if len([]rune(old)) < minSeen || old == stand {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[old] = stand
}

// texts replaces the buyer values seen in every string of a document.
func (r *Redactor) texts(v any) bool {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if s, ok := child.(string); ok {
				if n := r.Text(s); n != s {
					t[k], changed = n, true
				}
				continue
			}
			changed = r.texts(child) || changed
		}
	case []any:
		for i, child := range t {
			if s, ok := child.(string); ok {
				if n := r.Text(s); n != s {
					t[i], changed = n, true
				}
				continue
			}
			changed = r.texts(child) || changed
		}
	}
	return changed
}

// redactKeyFile is the key's file in the state directory.
const redactKeyFile = "redact.key"

var keyFileMu sync.Mutex

// LoadRedactKey reads the redaction key of this machine from dir (the
// state directory), making it (32 random bytes, mode 0600) on first use.
func LoadRedactKey(dir string) ([]byte, error) {
	if dir == "" {
		return nil, errors.New("no state directory to keep the redaction key in (set XDG_STATE_HOME or HOME)")
	}
	keyFileMu.Lock()
	defer keyFileMu.Unlock()
	if err := userfile.PrivateDir("state directory", dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, redactKeyFile)
	if b, err := readPrivate(path); err == nil && len(b) >= 32 {
		return b[:32], nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if userfile.Refused(err) {
			return nil, err
		}
		return nil, fmt.Errorf("reading the redaction key: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another process made it first: use that one.
		b, err := readPrivate(path)
		if err != nil || len(b) < 32 {
			return nil, fmt.Errorf("reading the redaction key %s: it is not a key bnpl made", path)
		}
		return b[:32], nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(key); err != nil {
		f.Close()
		return nil, err
	}
	return key, f.Close()
}

// readPrivate reads a file of the state directory without following a
// link at its path.
func readPrivate(path string) ([]byte, error) {
	f, err := userfile.OpenPrivate(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<10))
}

// testPhone matches the service's test phones (+971500000001,
// +966500000001, +96590000001, 500000001 and their 0002 twins).
var testPhone = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\+?[0-9]*0{6}[12]$`) })

// testEmails are the service's documented test buyers.
var testEmails = map[string]bool{"otp.success@tabby.ai": true, "otp.rejected@tabby.ai": true}

// Value replaces buyer data inside a decoded JSON document in place (the
// buyer's fields, then the same values wherever else they occur) and
// tells whether it changed anything.
func (r *Redactor) Value(v any) bool {
	changed := r.fieldsIn(v)
	return r.texts(v) || changed
}

func (r *Redactor) fieldsIn(v any) bool {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if obj, ok := child.(map[string]any); ok {
				switch strings.ToLower(k) {
				case "buyer":
					changed = r.fields(obj, map[string]func(string) string{
						"name": r.name, "email": r.email, "phone": r.phone, "dob": r.dob}) || changed
				case "shipping_address":
					changed = r.fields(obj, map[string]func(string) string{
						"address": r.address, "city": r.city, "zip": r.zip}) || changed
				}
			}
			changed = r.fieldsIn(child) || changed
		}
	case []any:
		for _, child := range t {
			changed = r.fieldsIn(child) || changed
		}
	}
	return changed
}

func (r *Redactor) fields(obj map[string]any, how map[string]func(string) string) bool {
	changed := false
	for field, stand := range how {
		if s, ok := obj[field].(string); ok && s != "" {
			if n := stand(s); n != s {
				obj[field] = n
				changed = true
				if everywhere[field] {
					r.remember(s, n)
				}
			}
		}
	}
	return changed
}

// sum is the keyed hash of a value of a kind.
func (r *Redactor) sum(kind, value string) []byte {
	m := hmac.New(sha256.New, r.key)
	m.Write([]byte(kind + "\x00" + value))
	return m.Sum(nil)
}

func (r *Redactor) tag(kind, value string, n int) string {
	return hex.EncodeToString(r.sum(kind, value))[:n]
}

func (r *Redactor) name(v string) string { return "Buyer " + r.tag("name", v, 8) }

func (r *Redactor) email(v string) string {
	if testEmails[strings.ToLower(strings.TrimSpace(v))] {
		return v
	}
	return "buyer-" + r.tag("email", strings.ToLower(strings.TrimSpace(v)), 10) + "@example.com"
}

// phone keeps a leading + and the first three digits (the country code)
// and the length, the rest digits of the hash; a stand-in never looks like
// a test phone.
func (r *Redactor) phone(v string) string {
	if testPhone().MatchString(v) {
		return v
	}
	digits := r.sum("phone", v)
	var b strings.Builder
	kept := 0
	for i, c := range v {
		switch {
		case c < '0' || c > '9':
			b.WriteRune(c)
		case kept < 3 && strings.HasPrefix(v, "+"):
			b.WriteRune(c)
			kept++
		default:
			b.WriteByte('0' + digits[i%len(digits)]%10)
		}
	}
	out := b.String()
	if testPhone().MatchString(out) || strings.HasSuffix(out, "0002") {
		out = out[:len(out)-1] + "7"
	}
	return out
}

// dob keeps the form (a date, or a date with a time part) and moves the
// date within 1950-1999.
func (r *Redactor) dob(v string) string {
	if len(v) < 10 || v[4] != '-' || v[7] != '-' {
		return v
	}
	n := binary.BigEndian.Uint32(r.sum("dob", v[:10]))
	date := fmt.Sprintf("%04d-%02d-%02d", 1950+n%50, 1+(n/50)%12, 1+(n/600)%28)
	return date + v[10:]
}

func (r *Redactor) address(v string) string { return "Address " + r.tag("address", v, 8) }
func (r *Redactor) city(v string) string    { return "City " + r.tag("city", v, 6) }

// zip keeps the length and the non-digits.
func (r *Redactor) zip(v string) string {
	digits := r.sum("zip", v)
	var b strings.Builder
	for i, c := range v {
		if c >= '0' && c <= '9' {
			b.WriteByte('0' + digits[i%len(digits)]%10)
		} else {
			b.WriteRune(c)
		}
	}
	if b.String() == v {
		return "Z" + r.tag("zip", v, 5)
	}
	return b.String()
}
