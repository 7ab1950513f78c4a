package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

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
		dsts := map[string]*string{
			keyTestKeyIn:     &testIn,
			keyLiveKeyIn:     &liveIn,
			keyRegion:        &sp.Region,
			keyMerchantCode:  &sp.MerchantCode,
			keyTestSecretKey: &sp.TestSecretKey,
			keyLiveSecretKey: &sp.LiveSecretKey,
			keyBaseURL:       &sp.BaseURL,
			keyLedger:        &sp.Ledger,
		}
		for field, fv := range fields {
			dst, known := dsts[field]
			if !known {
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

// maxConfigSize bounds what Load reads: a config of profiles is a few
// kilobytes, and a path pointing at something endless must not be read
// whole.
const maxConfigSize = 1 << 20
