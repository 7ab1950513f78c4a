// Package config keeps a merchant's profiles and secret keys in a YAML file
// of mode 0600, and decides for each command which account, key and address
// it talks to: a flag beats the environment, the environment beats the
// profile, and with nothing configured the embedded sandbox answers.
//
// The file is read and written through a viper instance made for the
// purpose, never viper's global one, so that tests and concurrent commands
// in one process cannot see each other's settings.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

// Keys of the file.
const (
	keyCurrentProfile = "current_profile"
	keyProfiles       = "profiles"
	keyRegion         = "region"
	keyMerchantCode   = "merchant_code"
	keyTestSecretKey  = "test_secret_key"
	keyLiveSecretKey  = "live_secret_key"
	keyBaseURL        = "base_url"
	keyTestKeyIn      = "test_secret_key_in"
	keyLiveKeyIn      = "live_secret_key_in"
)

// fileHeader warns whoever opens the file in an editor; YAML ignores it.
const fileHeader = "# bnpl configuration. It holds secret keys: keep it mode 0600 and out of version control.\n"

// Profile of a merchant account.
type Profile struct {
	Name         string
	Region       string // "ae" (UAE and Kuwait) or "sa" (KSA)
	MerchantCode string
	// TestSecretKey and LiveSecretKey are the keys held in the file. A key
	// in the OS keychain is not here: its slot's Storage says where it is,
	// and Config.Key reads it.
	TestSecretKey string
	LiveSecretKey string
	TestKeyIn     Storage // where the test key lives; StorageNone when there is none
	LiveKeyIn     Storage // where the live key lives
	BaseURL       string  // optional override
}

// KeyIn is where the profile's test or live key lives.
func (p Profile) KeyIn(live bool) Storage {
	if live {
		return p.LiveKeyIn
	}
	return p.TestKeyIn
}

// String masks the keys, so that printing a profile by mistake leaks
// nothing.
func (p Profile) String() string {
	return fmt.Sprintf("profile %s: region=%s merchant_code=%s test_secret_key=%s (%s) live_secret_key=%s (%s) base_url=%s",
		p.Name, p.Region, p.MerchantCode, secret.MaskKey(p.TestSecretKey), p.TestKeyIn, secret.MaskKey(p.LiveSecretKey), p.LiveKeyIn, p.BaseURL)
}

// GoString masks the keys for %#v too.
func (p Profile) GoString() string { return p.String() }

// LogValue masks the keys when a profile is logged with slog.
func (p Profile) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("name", p.Name),
		slog.String(keyRegion, p.Region),
		slog.String(keyMerchantCode, p.MerchantCode),
		slog.String(keyTestSecretKey, secret.MaskKey(p.TestSecretKey)),
		slog.String(keyLiveSecretKey, secret.MaskKey(p.LiveSecretKey)),
		slog.String(keyTestKeyIn, string(p.TestKeyIn)),
		slog.String(keyLiveKeyIn, string(p.LiveKeyIn)),
		slog.String(keyBaseURL, p.BaseURL),
	)
}

// MarshalJSON writes the profile with the file's field names, masked keys
// and where each key lives, for `bnpl profiles list -o json`. A key in the
// keychain is masked only when it has been read (see Config.WithKeys).
func (p Profile) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name          string  `json:"name"`
		Region        string  `json:"region"`
		MerchantCode  string  `json:"merchant_code"`
		TestSecretKey string  `json:"test_secret_key,omitempty"`
		LiveSecretKey string  `json:"live_secret_key,omitempty"`
		TestKeyIn     Storage `json:"test_key_storage,omitempty"`
		LiveKeyIn     Storage `json:"live_key_storage,omitempty"`
		BaseURL       string  `json:"base_url,omitempty"`
	}{p.Name, p.Region, p.MerchantCode, secret.MaskKey(p.TestSecretKey), secret.MaskKey(p.LiveSecretKey), p.TestKeyIn, p.LiveKeyIn, p.BaseURL})
}

// storedProfile is a profile as the file holds it, with the keys this
// version does not know, so that saving keeps what a newer bnpl wrote.
type storedProfile struct {
	Profile
	unknown map[string]any
}

// Config is the content of one config file. It holds no viper instance
// between calls: one is made to decode the file and another to encode it,
// because viper cannot delete a key and removing a profile must. A Config
// is not safe for concurrent changes; reading it from several goroutines
// is.
type Config struct {
	path     string
	current  string
	profiles map[string]storedProfile
	unknown  map[string]any // top-level keys this version does not know

	// forget lists keychain entries to delete once the file no longer
	// names them (a removed profile, a key moved to the file).
	forget []string
	// notices are lines for stderr that the last Save left.
	notices []string
}

// Empty is a config with no profiles, as a missing file at path gives.
func Empty(path string) *Config {
	return &Config{path: path, profiles: map[string]storedProfile{}, unknown: map[string]any{}}
}

// Load reads the config file at path. A missing file is an empty config: a
// fresh machine has none. A file that does not parse is a *FileError naming
// the file and, when the parser says it, the line.
func Load(path string) (*Config, error) {
	if path == "" {
		return nil, &InvalidError{Field: "config",
			Problem: "cannot tell where the config file is: neither XDG_CONFIG_HOME nor HOME is an absolute directory",
			Advice:  "set HOME (or XDG_CONFIG_HOME) to your home directory"}
	}
	c := &Config{path: path, profiles: map[string]storedProfile{}, unknown: map[string]any{}}
	data, err := readConfigFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	if err := c.decode(data); err != nil {
		return nil, err
	}
	return c, nil
}

// readConfigFile reads the file whole when it is a regular file (through
// links) of a sane size; a device, a pipe or a directory is refused before
// anything is read from it.
func readConfigFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("read config file: %w", err)
	}
	if !info.Mode().IsRegular() {
		resolved := ""
		if l, lerr := os.Lstat(path); lerr == nil && l.Mode()&fs.ModeSymlink != 0 {
			resolved, _ = filepath.EvalSymlinks(path)
		}
		return nil, notRegularError(path, resolved, info)
	}
	if info.Size() > maxConfigSize {
		return nil, &FileError{Path: path, Problem: fmt.Sprintf("the file is %d bytes; a config is at most %d", info.Size(), maxConfigSize)}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read config file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("read config file: %w", err)
	}
	if len(data) > maxConfigSize {
		return nil, &FileError{Path: path, Problem: fmt.Sprintf("the file is larger than %d bytes", maxConfigSize)}
	}
	return data, nil
}

func newViper() *viper.Viper {
	// Profile names and unknown keys may hold dots, which viper's default
	// delimiter would turn into nesting on the way back out.
	v := viper.NewWithOptions(viper.KeyDelimiter("::"))
	v.SetConfigType("yaml")
	return v
}

func (c *Config) decode(data []byte) error {
	v := newViper()
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return parseError(c.path, data, err)
	}
	for key, value := range v.AllSettings() {
		switch key {
		case keyCurrentProfile:
			name, ok := scalarString(value)
			if !ok {
				return &FileError{Path: c.path, Problem: "current_profile must be a profile name"}
			}
			c.current = strings.ToLower(strings.TrimSpace(name))
		case keyProfiles:
			if err := c.decodeProfiles(value); err != nil {
				return err
			}
		default:
			c.unknown[key] = value
		}
	}
	return nil
}

func (c *Config) decodeProfiles(value any) error {
	entries, ok := value.(map[string]any)
	if !ok {
		return &FileError{Path: c.path, Problem: "profiles must be a mapping of profile names to profiles"}
	}
	for name, raw := range entries {
		fields, ok := raw.(map[string]any)
		if !ok {
			return &FileError{Path: c.path, Problem: fmt.Sprintf("profile %q must be a mapping of fields", name)}
		}
		sp := storedProfile{Profile: Profile{Name: name}, unknown: map[string]any{}}
		var testIn, liveIn string
		for field, fv := range fields {
			var dst *string
			switch field {
			case keyTestKeyIn:
				dst = &testIn
			case keyLiveKeyIn:
				dst = &liveIn
			case keyRegion:
				dst = &sp.Region
			case keyMerchantCode:
				dst = &sp.MerchantCode
			case keyTestSecretKey:
				dst = &sp.TestSecretKey
			case keyLiveSecretKey:
				dst = &sp.LiveSecretKey
			case keyBaseURL:
				dst = &sp.BaseURL
			default:
				sp.unknown[field] = fv
				continue
			}
			s, ok := scalarString(fv)
			if !ok {
				return &FileError{Path: c.path, Problem: fmt.Sprintf("profile %q: %s must be a single value", name, field)}
			}
			*dst = strings.TrimSpace(s)
		}
		// Regions are compared in lower case everywhere; a hand-edited
		// "AE" means ae.
		sp.Region = strings.ToLower(sp.Region)
		for _, slot := range []struct {
			field string
			in    string
			key   string
			dst   *Storage
		}{{keyTestKeyIn, testIn, sp.TestSecretKey, &sp.TestKeyIn}, {keyLiveKeyIn, liveIn, sp.LiveSecretKey, &sp.LiveKeyIn}} {
			switch {
			case slot.key != "":
				// A key written in the file is the key, whatever a
				// hand-edited marker says.
				*slot.dst = StorageFile
			case strings.EqualFold(slot.in, string(StorageKeychain)):
				*slot.dst = StorageKeychain
			case slot.in != "":
				return &FileError{Path: c.path, Problem: fmt.Sprintf("profile %q: %s must be keychain", name, slot.field)}
			}
		}
		c.profiles[name] = sp
	}
	return nil
}

// scalarString accepts the scalars YAML may make of an unquoted value (a
// merchant code of digits decodes as a number) and refuses lists and maps.
func scalarString(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		return v, true
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(v), true
	}
	return "", false
}

// parseError turns viper's wrapping of the YAML parser's error into a
// FileError with the line pulled out, and masks any key the parser quoted.
// The parser names the line where the enclosing block began for some
// errors ("did not find expected key" on line 2 for a bad indent on line
// 5); the line given is the first at which the file stops parsing.
func parseError(path string, data []byte, err error) error {
	msg := err.Error()
	var pe viper.ConfigParseError
	if errors.As(err, &pe) && pe.Unwrap() != nil {
		msg = pe.Unwrap().Error()
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	msg = strings.TrimSpace(msg)
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		digits, after, found := strings.Cut(rest, ":")
		if n, convErr := strconv.Atoi(digits); found && convErr == nil {
			line = n
			msg = strings.TrimSpace(after)
			if bad := firstBadLine(data); bad > 0 {
				line = bad
			}
		}
	}
	return &FileError{Path: path, Line: line, Problem: redactKeys(msg)}
}

// firstBadLine is the number of the first line at which data, read line
// by line, stops being YAML: the first n whose first n lines do not
// parse. 0 when every prefix parses, or the file is too long to try.
func firstBadLine(data []byte) int {
	const maxLines = 2000
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > maxLines {
		return 0
	}
	end := 0
	for i, l := range lines {
		end += len(l)
		var doc any
		if yaml.Unmarshal(data[:end], &doc) != nil {
			return i + 1
		}
	}
	return 0
}

// Path is the file this config was loaded from and is saved to.
func (c *Config) Path() string { return c.path }

// Profiles lists the profiles sorted by name.
func (c *Config) Profiles() []Profile {
	out := make([]Profile, 0, len(c.profiles))
	for _, sp := range c.profiles {
		out = append(out, sp.Profile)
	}
	slices.SortFunc(out, func(a, b Profile) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// profileNames lists the names sorted, for error messages.
func (c *Config) profileNames() []string {
	names := make([]string, 0, len(c.profiles))
	for name := range c.profiles {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Profile finds a profile by name. Names are matched without regard to case
// because the file's keys are (viper folds them to lower case).
func (c *Config) Profile(name string) (Profile, bool) {
	sp, ok := c.profiles[strings.ToLower(strings.TrimSpace(name))]
	return sp.Profile, ok
}

// SetProfile adds or replaces a profile after checking it. The region is
// folded to lower case and surrounding spaces are dropped; keys this version
// does not know, kept from the file, survive the replacement.
//
// A key given in TestSecretKey or LiveSecretKey goes into the file unless
// its slot says StorageKeychain (a key read from the keychain, which stays
// there); StoreKey is the way to put a new key in the keychain.
func (c *Config) SetProfile(p Profile) error {
	p.Name = strings.TrimSpace(p.Name)
	p.Region = strings.ToLower(strings.TrimSpace(p.Region))
	p.MerchantCode = strings.TrimSpace(p.MerchantCode)
	p.TestSecretKey = strings.TrimSpace(p.TestSecretKey)
	p.LiveSecretKey = strings.TrimSpace(p.LiveSecretKey)
	p.BaseURL = strings.TrimSpace(p.BaseURL)
	if err := validateProfile(p); err != nil {
		return err
	}
	for _, slot := range []struct {
		key string
		in  *Storage
	}{{p.TestSecretKey, &p.TestKeyIn}, {p.LiveSecretKey, &p.LiveKeyIn}} {
		if slot.key != "" && *slot.in != StorageKeychain {
			*slot.in = StorageFile
		}
		if slot.key == "" && *slot.in == StorageFile {
			*slot.in = StorageNone
		}
	}
	if c.profiles == nil {
		c.profiles = map[string]storedProfile{}
	}
	c.profiles[p.Name] = storedProfile{Profile: p, unknown: c.profiles[p.Name].unknown}
	return nil
}

func validateProfile(p Profile) error {
	if err := ValidateName(p.Name); err != nil {
		return err
	}
	if !ValidRegion(p.Region) {
		return &InvalidError{Field: keyRegion,
			Problem: fmt.Sprintf("profile %q: region %q is not ae or sa", p.Name, p.Region),
			Advice:  "use --region ae for the UAE and Kuwait, --region sa for KSA"}
	}
	if p.MerchantCode == "" {
		return &InvalidError{Field: keyMerchantCode,
			Problem: fmt.Sprintf("profile %q: merchant code is empty", p.Name),
			Advice:  "pass --merchant-code CODE (the code from the merchant dashboard)"}
	}
	if p.TestSecretKey != "" {
		if live, ok := KeyKind(p.TestSecretKey); !ok || live {
			return &InvalidError{Field: keyTestSecretKey,
				Problem: fmt.Sprintf("profile %q: the test key must start with sk_test_", p.Name),
				Advice:  "a key starting sk_ without test_ is a live key: store it as the live key"}
		}
	}
	if p.LiveSecretKey != "" {
		if live, ok := KeyKind(p.LiveSecretKey); !ok || !live {
			return &InvalidError{Field: keyLiveSecretKey,
				Problem: fmt.Sprintf("profile %q: the live key must start with sk_ and not sk_test_", p.Name),
				Advice:  "a key starting sk_test_ is a test key: store it as the test key"}
		}
	}
	if p.BaseURL != "" {
		if err := validateBaseURL(p.BaseURL, fmt.Sprintf("profile %q: base_url", p.Name)); err != nil {
			return err
		}
	}
	return nil
}

// ValidateName keeps names to what is easy to type as --profile and to put
// in BNPL_PROFILE, in lower case because the file's keys are folded to it.
func ValidateName(name string) error {
	ok := name != "" && len(name) <= 64
	for i := 0; ok && i < len(name); i++ {
		b := name[i]
		switch {
		case 'a' <= b && b <= 'z', '0' <= b && b <= '9':
		case (b == '-' || b == '_') && i > 0:
		default:
			ok = false
		}
	}
	if ok {
		return nil
	}
	return &InvalidError{Field: "name",
		Problem: fmt.Sprintf("profile name %q is not allowed", name),
		Advice:  "use lower-case letters, digits, - and _ (up to 64, starting with a letter or digit), e.g. prod or ae-test"}
}

// validateBaseURL asks for an absolute http(s) address without
// credentials, query or fragment, as the client does; whether a key may
// travel over plain http to that host is the client's decision. The address
// is quoted with any user and password removed.
func validateBaseURL(raw, what string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &InvalidError{Field: keyBaseURL,
			Problem: fmt.Sprintf("%s %q is not an http(s) address", what, secret.RedactURL(raw)),
			Advice:  "give an absolute address such as https://api.tabby.ai"}
	}
	if u.User != nil {
		return &InvalidError{Field: keyBaseURL,
			Problem: fmt.Sprintf("%s %q carries a user name or password: bnpl would store and print it", what, secret.RedactURL(raw)),
			Advice:  "give the address without user@ or user:password@; the secret key is the only credential the service takes"}
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return &InvalidError{Field: keyBaseURL,
			Problem: fmt.Sprintf("%s %q has a query or a fragment", what, secret.RedactURL(stripQuery(raw))),
			Advice:  "give the address alone, such as https://api.tabby.ai"}
	}
	return nil
}

// stripQuery drops what follows ? or #, which may hold a token, before an
// address is quoted.
func stripQuery(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		return raw[:i] + "?…"
	}
	return raw
}

// RemoveProfile deletes a profile. Removing the current one also clears
// current_profile, so that the file never names a profile it lacks.
func (c *Config) RemoveProfile(name string) error {
	key := strings.ToLower(strings.TrimSpace(name))
	sp, ok := c.profiles[key]
	if !ok {
		return &ProfileNotFoundError{Name: name, Known: c.profileNames()}
	}
	for _, live := range []bool{false, true} {
		if sp.KeyIn(live) == StorageKeychain {
			c.forget = append(c.forget, keychainAccount(c.path, key, live))
		}
	}
	delete(c.profiles, key)
	if c.current == key {
		c.current = ""
	}
	return nil
}

// Current is the default profile (the file's current_profile), "" if none.
func (c *Config) Current() string { return c.current }

// SetCurrent makes a profile the default; "" clears the choice.
func (c *Config) SetCurrent(name string) error {
	key := strings.ToLower(strings.TrimSpace(name))
	if key == "" {
		c.current = ""
		return nil
	}
	if _, ok := c.profiles[key]; !ok {
		return &ProfileNotFoundError{Name: name, Known: c.profileNames()}
	}
	c.current = key
	return nil
}

// encode renders the config as YAML through viper.
func (c *Config) encode() ([]byte, error) {
	doc := make(map[string]any, len(c.unknown)+2)
	for k, v := range c.unknown {
		doc[k] = v
	}
	if c.current != "" {
		doc[keyCurrentProfile] = c.current
	}
	if len(c.profiles) > 0 {
		profiles := make(map[string]any, len(c.profiles))
		for name, sp := range c.profiles {
			fields := make(map[string]any, len(sp.unknown)+5)
			for k, v := range sp.unknown {
				fields[k] = v
			}
			// Empty fields are left out: an empty key in the file reads as
			// if it were set. A key in the keychain is never written here,
			// only the mark that says where it is.
			fileKey := func(v string, in Storage) string {
				if in == StorageFile {
					return v
				}
				return ""
			}
			mark := func(in Storage) string {
				if in == StorageKeychain {
					return string(StorageKeychain)
				}
				return ""
			}
			for k, v := range map[string]string{
				keyRegion:        sp.Region,
				keyMerchantCode:  sp.MerchantCode,
				keyTestSecretKey: fileKey(sp.TestSecretKey, sp.TestKeyIn),
				keyLiveSecretKey: fileKey(sp.LiveSecretKey, sp.LiveKeyIn),
				keyTestKeyIn:     mark(sp.TestKeyIn),
				keyLiveKeyIn:     mark(sp.LiveKeyIn),
				keyBaseURL:       sp.BaseURL,
			} {
				if v != "" {
					fields[k] = v
				}
			}
			profiles[name] = fields
		}
		doc[keyProfiles] = profiles
	}
	v := newViper()
	if err := v.MergeConfigMap(doc); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	var buf bytes.Buffer
	buf.WriteString(fileHeader)
	if err := v.WriteConfigTo(&buf); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	return buf.Bytes(), nil
}

// maxConfigSize bounds what Load reads: a config of profiles is a few
// kilobytes, and a path pointing at something endless must not be read
// whole.
const maxConfigSize = 1 << 20

// Save writes the config to its path. The directory is made 0700 when
// missing. The file is written to a temporary file of mode 0600 in the same
// directory and renamed over the old one, so a crash or a full disk leaves
// the old file whole, and the keys are never readable by others, not even
// for a moment. A symbolic link at the path (a dotfiles setup) is followed
// when it leads to a regular file, so the link stays and its target is
// replaced; a link to a device, a pipe or a directory, or to nothing, is
// refused, as is a path that is itself not a regular file. A directory
// others can write is used, but said (see Notices).
//
// Keychain entries the file no longer names (a removed profile, a key moved
// to the file) are deleted after the file is written; a failure to delete
// one is a notice, not an error.
func (c *Config) Save() error {
	c.notices = nil
	if c.path == "" {
		return &InvalidError{Field: "config", Problem: "the config has no file path to save to",
			Advice: "set HOME (or XDG_CONFIG_HOME) to your home directory"}
	}
	data, err := c.encode()
	if err != nil {
		return err
	}
	target, err := writeTarget(c.path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	// CreateTemp already asks for 0600; the explicit chmod also covers
	// platforms and file systems where that request is not honoured.
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		return fmt.Errorf("save config: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	committed = true
	syncDir(dir)
	c.notices = append(c.notices, c.DirWarnings()...)
	c.forgetKeychainEntries()
	return nil
}

// Notices are the lines the last Save left for stderr (without a
// "warning:" prefix): a directory others can write, a keychain entry that
// could not be deleted.
func (c *Config) Notices() []string { return c.notices }

func (c *Config) forgetKeychainEntries() {
	kc := currentKeychain()
	for _, account := range c.forget {
		if err := kc.delete(account); err != nil {
			c.notices = append(c.notices, fmt.Sprintf(
				"could not delete the keychain entry %q of service %q (%v): delete it with your keychain's own tool",
				account, keychainService, err))
		}
	}
	c.forget = nil
}

// writeTarget is the regular file Save replaces: path itself, or what a
// symbolic link at path leads to. Anything else is refused, so that the
// keys never replace a device (a link to /dev/null written as root) or land
// somewhere the person did not mean.
func writeTarget(path string) (string, error) {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return path, nil
	case err != nil:
		return "", fmt.Errorf("save config: %w", err)
	case info.Mode().IsRegular():
		return path, nil
	case info.Mode()&fs.ModeSymlink == 0:
		return "", notRegularError(path, "", info)
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		dest, _ := os.Readlink(path)
		return "", &InvalidError{Field: "config",
			Problem: fmt.Sprintf("config file %s is a symbolic link to %s, which does not exist", path, dest),
			Advice:  "create the file the link points to (touch it, then chmod 600), or remove the link, and run the command again"}
	}
	tinfo, err := os.Stat(resolved)
	if err != nil {
		return "", fmt.Errorf("save config: %w", err)
	}
	if !tinfo.Mode().IsRegular() {
		return "", notRegularError(path, resolved, tinfo)
	}
	return resolved, nil
}

func notRegularError(path, resolved string, info fs.FileInfo) error {
	what := fileKind(info.Mode())
	problem := fmt.Sprintf("config file %s is %s, not a regular file", path, what)
	if resolved != "" {
		problem = fmt.Sprintf("config file %s is a symbolic link to %s, which is %s, not a regular file", path, resolved, what)
	}
	return &InvalidError{Field: "config", Problem: problem + ": bnpl keeps keys only in a regular file",
		Advice: "remove it (rm " + shellQuote(path) + ") and run the command again, or set XDG_CONFIG_HOME to another directory"}
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDir != 0:
		return "a directory"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// DirWarnings say, one line each, when the directory of the config file,
// or of the file a link at its path leads to, is not private to the user:
// writable by others, who could then replace the file and its keys, or
// owned by another user. Nothing is said on Windows, whose ACLs Unix modes
// do not describe, nor for a directory that does not exist yet.
func (c *Config) DirWarnings() []string {
	if runtime.GOOS == "windows" || c.path == "" {
		return nil
	}
	dirs := []string{filepath.Dir(c.path)}
	if resolved, err := filepath.EvalSymlinks(c.path); err == nil && filepath.Dir(resolved) != dirs[0] {
		dirs = append(dirs, filepath.Dir(resolved))
	}
	var out []string
	for i, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil {
			continue
		}
		what := "the config file's directory " + dir
		if i > 0 {
			what = "the directory " + dir + " of the file the config link leads to"
		}
		mode := info.Mode()
		switch {
		case mode.Perm()&0o022 != 0:
			out = append(out, fmt.Sprintf("%s can be written by other users (mode %04o), who could replace the config file and its keys; fix with: chmod go-w %s",
				what, mode.Perm(), shellQuote(dir)))
		case !ownedByMe(info):
			out = append(out, fmt.Sprintf("%s belongs to another user, who could replace the config file and its keys; keep the config in a directory of your own (XDG_CONFIG_HOME)", what))
		}
	}
	return out
}

// syncDir makes the rename durable where the platform allows; a failure
// only weakens durability, so it is not reported.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// PermissionWarning is a notice for stderr (without a "warning:" prefix,
// which the caller adds) when the config file can be read
// or changed by other users, with the command that fixes it; "" when the
// file is private or absent. It looks at the file as it is now, so it is
// "" after a Save.
func (c *Config) PermissionWarning() string {
	if runtime.GOOS == "windows" || c.path == "" {
		return "" // Unix mode bits say nothing about Windows ACLs.
	}
	info, err := os.Stat(c.path)
	if err != nil {
		return ""
	}
	mode := info.Mode().Perm()
	if mode&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("config file %s holds secret keys and is accessible by other users (mode %04o); fix with: chmod 600 %s",
		c.path, mode, shellQuote(c.path))
}

// shellQuote quotes a path for the fix the warning suggests, only when it
// needs it, so the usual path stays easy to read.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '~' ||
			('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
