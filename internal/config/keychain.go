package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
)

// Storage says where a profile's secret key lives.
type Storage string

// Where a key can live. A profile's slot without a key has StorageNone.
const (
	StorageNone     Storage = ""
	StorageFile     Storage = "file"     // in the config file, mode 0600
	StorageKeychain Storage = "keychain" // in the operating system's keychain
)

// Describe names the place for a person: "the OS keychain".
func (s Storage) Describe() string {
	switch s {
	case StorageFile:
		return "the config file"
	case StorageKeychain:
		return "the OS keychain"
	}
	return "nowhere"
}

// KeychainStore is the raw interface of a keychain, the one
// github.com/zalando/go-keyring offers: entries are found by a service and
// an account name.
type KeychainStore interface {
	Set(service, account, secret string) error
	Get(service, account string) (string, error)
	Delete(service, account string) error
}

// goKeyring is the operating system's keychain through go-keyring: the
// macOS Keychain, the Windows Credential Manager, the Secret Service of a
// Linux desktop.
type goKeyring struct{}

func (goKeyring) Set(service, account, secret string) error {
	return keyring.Set(service, account, secret)
}

func (goKeyring) Get(service, account string) (string, error) {
	return keyring.Get(service, account)
}

func (goKeyring) Delete(service, account string) error {
	return keyring.Delete(service, account)
}

// keychainService is the service name bnpl's entries are filed under.
const keychainService = "bnpl"

// DefaultKeychainTimeout bounds each keychain call: a keychain that does not
// answer in this time counts as absent, and the key goes to the file.
const DefaultKeychainTimeout = 3 * time.Second

// ErrNotInKeychain is an entry the keychain does not hold.
var ErrNotInKeychain = errors.New("not in the OS keychain")

// KeychainUnavailableError is a keychain that is absent or did not answer.
type KeychainUnavailableError struct {
	Reason string
}

func (e *KeychainUnavailableError) Error() string {
	return "no OS keychain answered (" + e.Reason + ")"
}

// keychain wraps a store with a time-out and with errors a person can act
// on. Once the store has failed to answer, it is not asked again in the same
// process: a command that reads several keys waits at most once.
type keychain struct {
	store   KeychainStore
	timeout time.Duration
	// probe tells, before any call, why there can be no keychain ("" when
	// there may be one), so that a machine without a session bus never
	// waits and never starts one.
	probe func() string

	mu   sync.Mutex
	down *KeychainUnavailableError
}

var (
	keychainMu     sync.Mutex
	activeKeychain = newOSKeychain()
)

func newOSKeychain() *keychain {
	return &keychain{store: goKeyring{}, timeout: DefaultKeychainTimeout, probe: func() string {
		return keychainProbe(runtime.GOOS, os.Getenv, os.Getuid(), fileExists)
	}}
}

func currentKeychain() *keychain {
	keychainMu.Lock()
	defer keychainMu.Unlock()
	return activeKeychain
}

// UseKeychainStore makes store the keychain of this process, with the given
// time-out, and returns what undoes it. Tests use it so that the operating
// system's keychain is never touched: go-keyring's mock (keyring.MockInit)
// behind GoKeyringStore, or a store of their own.
func UseKeychainStore(store KeychainStore, timeout time.Duration) (restore func()) {
	keychainMu.Lock()
	defer keychainMu.Unlock()
	old := activeKeychain
	activeKeychain = &keychain{store: store, timeout: timeout, probe: func() string { return "" }}
	return func() {
		keychainMu.Lock()
		defer keychainMu.Unlock()
		activeKeychain = old
	}
}

// GoKeyringStore is the store that calls go-keyring; after keyring.MockInit
// it is the library's in-memory mock.
func GoKeyringStore() KeychainStore { return goKeyring{} }

// call runs op with the time-out. A call that times out is left to finish
// on its own; its result is dropped.
func (k *keychain) call(op func(KeychainStore) error) error {
	k.mu.Lock()
	down := k.down
	k.mu.Unlock()
	if down != nil {
		return down
	}
	if reason := k.probe(); reason != "" {
		return k.markDown(reason)
	}
	done := make(chan error, 1)
	go func() { done <- op(k.store) }()
	timer := time.NewTimer(k.timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		switch {
		case err == nil:
			return nil
		case errors.Is(err, keyring.ErrNotFound):
			return ErrNotInKeychain
		case errors.Is(err, keyring.ErrSetDataTooBig):
			return fmt.Errorf("the OS keychain refused the entry as too big")
		}
		// Anything else (no Secret Service, a locked collection the person
		// declined to unlock, an unsupported platform) means no keychain.
		return k.markDown(redactKeys(err.Error()))
	case <-timer.C:
		return k.markDown(fmt.Sprintf("it did not answer within %s", k.timeout))
	}
}

func (k *keychain) markDown(reason string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.down = &KeychainUnavailableError{Reason: reason}
	return k.down
}

func (k *keychain) set(account, secret string) error {
	return k.call(func(s KeychainStore) error { return s.Set(keychainService, account, secret) })
}

func (k *keychain) get(account string) (string, error) {
	var out string
	err := k.call(func(s KeychainStore) error {
		v, err := s.Get(keychainService, account)
		out = v
		return err
	})
	if err != nil {
		return "", err
	}
	return out, nil
}

func (k *keychain) delete(account string) error {
	err := k.call(func(s KeychainStore) error { return s.Delete(keychainService, account) })
	if errors.Is(err, ErrNotInKeychain) {
		return nil
	}
	return err
}

// keychainAccount names a key's entry. The config file's path is part of
// it, so that two config files (a script's own XDG_CONFIG_HOME, say) with a
// profile of the same name never share or overwrite each other's keys.
func keychainAccount(configPath, profile string, live bool) string {
	slot := "test"
	if live {
		slot = "live"
	}
	return profile + "/" + slot + " (" + configPath + ")"
}

// keychainProbe answers, without calling anything, why this machine has no
// keychain. On Linux and the BSDs the keychain is the Secret Service on the
// D-Bus session bus; without a session bus address and without the
// per-user bus socket there is none, and asking the library would try to
// launch a bus. Other systems always have theirs.
func keychainProbe(goos string, getenv func(string) string, uid int, exists func(string) bool) string {
	switch goos {
	case "darwin", "windows":
		return ""
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
	default:
		return "no keychain is known on " + goos
	}
	if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return ""
	}
	// The D-Bus library looks in exactly this directory before it falls
	// back to launching a bus, so the probe looks there too.
	dir := "/run/user/" + strconv.Itoa(uid)
	if exists(filepath.Join(dir, "bus")) || exists(filepath.Join(dir, "dbus-session")) {
		return ""
	}
	return "no D-Bus session bus, as on a headless machine"
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// KeychainError is a profile whose key is in the keychain when the
// keychain cannot give it.
type KeychainError struct {
	Profile string
	Live    bool
	Err     error // ErrNotInKeychain or a *KeychainUnavailableError
}

func (e *KeychainError) Error() string {
	if errors.Is(e.Err, ErrNotInKeychain) {
		return redactKeys(fmt.Sprintf("profile %q keeps its %s key in the OS keychain, but the keychain has no such entry any more", e.Profile, slotName(e.Live)))
	}
	return redactKeys(fmt.Sprintf("profile %q keeps its %s key in the OS keychain, which cannot give it: %v", e.Profile, slotName(e.Live), e.Err))
}

func (e *KeychainError) Unwrap() error { return e.Err }

// ExitCode is 2: nothing was sent.
func (e *KeychainError) ExitCode() int { return exitUsage }

// Hint names the ways on: the keychain, the environment, or the file.
func (e *KeychainError) Hint() string {
	store := fmt.Sprintf("store the key again with `bnpl login --profile %s --with-key` (add --insecure-storage to keep it in the config file)", e.Profile)
	if errors.Is(e.Err, ErrNotInKeychain) {
		return redactKeys(store)
	}
	return redactKeys("unlock the keychain (or run from your desktop session) and try again, set " + EnvSecretKey + ", or " + store)
}

func slotName(live bool) string {
	if live {
		return "live"
	}
	return "test"
}

// Key is the profile's test or live key and where it lives; the keychain is
// read only when the key is there. A slot without a key gives "" and
// StorageNone, and no error.
func (c *Config) Key(p Profile, live bool) (string, Storage, error) {
	in := p.KeyIn(live)
	switch in {
	case StorageFile:
		if live {
			return p.LiveSecretKey, in, nil
		}
		return p.TestSecretKey, in, nil
	case StorageKeychain:
		key, err := currentKeychain().get(keychainAccount(c.path, p.Name, live))
		if err != nil {
			return "", in, &KeychainError{Profile: p.Name, Live: live, Err: err}
		}
		return key, in, nil
	}
	return "", StorageNone, nil
}

// StoreResult says what StoreKey did.
type StoreResult struct {
	Live     bool    // the key went into the live slot
	Storage  Storage // where it went
	Replaced bool    // the slot held a key before
	// Fallback is why the keychain was asked for and not used; "" when it
	// was used or not asked for.
	Fallback string
}

// StoreKey puts key into the named profile's test or live slot (its prefix
// decides which). With useKeychain the key goes into the OS keychain and
// only a mark of it into the file; when no keychain answers it goes into
// the file, and Fallback says why. A key that leaves the keychain for the
// file has its entry deleted by the next Save. The profile must exist (see
// SetProfile); nothing is written to the file until Save.
func (c *Config) StoreKey(name, key string, useKeychain bool) (StoreResult, error) {
	live, ok := KeyKind(key)
	if !ok {
		return StoreResult{}, &InvalidError{Field: "secret_key",
			Problem: "that is not a secret key: keys start with sk_test_ (test) or sk_ (live)",
			Advice:  "copy the secret key (not the public pk_ key) from the merchant dashboard"}
	}
	name = strings.ToLower(strings.TrimSpace(name))
	sp, ok := c.profiles[name]
	if !ok {
		return StoreResult{}, &ProfileNotFoundError{Name: name, Known: c.profileNames()}
	}
	value, in := &sp.TestSecretKey, &sp.TestKeyIn
	if live {
		value, in = &sp.LiveSecretKey, &sp.LiveKeyIn
	}
	res := StoreResult{Live: live, Replaced: *in != StorageNone}
	account := keychainAccount(c.path, name, live)
	if useKeychain {
		err := currentKeychain().set(account, key)
		if err == nil {
			*value, *in = "", StorageKeychain
			c.forget = slices.DeleteFunc(c.forget, func(a string) bool { return a == account })
			c.profiles[name] = sp
			res.Storage = StorageKeychain
			return res, nil
		}
		var down *KeychainUnavailableError
		if errors.As(err, &down) {
			res.Fallback = down.Reason
		} else {
			res.Fallback = err.Error()
		}
	}
	if *in == StorageKeychain {
		c.forget = append(c.forget, account)
	}
	*value, *in = key, StorageFile
	c.profiles[name] = sp
	res.Storage = StorageFile
	return res, nil
}
