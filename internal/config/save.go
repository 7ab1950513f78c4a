package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// fileHeader warns whoever opens the file in an editor; YAML ignores it.
const fileHeader = "# bnpl configuration. It holds secret keys: keep it mode 0600 and out of version control.\n"

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
				keyLedger:        sp.Ledger,
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
