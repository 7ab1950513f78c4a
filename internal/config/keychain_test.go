package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
)

// TestMain puts go-keyring's in-memory mock behind the keychain before any
// test runs, so that no test of this package can reach the operating
// system's keychain.
func TestMain(m *testing.M) {
	keyring.MockInit()
	restore := UseKeychainStore(GoKeyringStore(), time.Second)
	code := m.Run()
	restore()
	os.Exit(code)
}

// freshMock gives a test an empty mock keychain of its own.
func freshMock(t *testing.T) {
	t.Helper()
	keyring.MockInit()
	t.Cleanup(UseKeychainStore(GoKeyringStore(), time.Second))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStoreKeyInKeychain(t *testing.T) {
	freshMock(t)
	c := newConfig(t, Profile{Name: "shop", Region: "ae", MerchantCode: "m"})
	res, err := c.StoreKey("shop", profTestKey, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Storage != StorageKeychain || res.Live || res.Replaced || res.Fallback != "" {
		t.Fatalf("result %+v, want the test key in the keychain", res)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	text := readFile(t, c.Path())
	assertNoKey(t, "config file", text)
	if !strings.Contains(text, "test_secret_key_in: keychain") {
		t.Errorf("file does not mark the key as in the keychain:\n%s", text)
	}
	stored, err := keyring.Get(keychainService, keychainAccount(c.Path(), "shop", false))
	if err != nil || stored != profTestKey {
		t.Fatalf("keychain holds %q, %v", stored, err)
	}

	// A new process: the file says where the key is, Resolve reads it.
	again, err := Load(c.Path())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := again.Profile("shop")
	if p.TestKeyIn != StorageKeychain || p.TestSecretKey != "" {
		t.Fatalf("reloaded profile %v", p)
	}
	tg, err := Resolve(again, Overrides{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tg.SecretKey != profTestKey || tg.KeyStorage != StorageKeychain {
		t.Errorf("target %v, want the keychain's key", tg)
	}

	// Storing it again replaces it, and says so.
	res, err = again.StoreKey("shop", "sk_test_PROFTESTMIDDLE_0009", true)
	if err != nil || !res.Replaced {
		t.Errorf("second store: %+v, %v; want Replaced", res, err)
	}
}

func TestStoreKeyFallsBackToFile(t *testing.T) {
	keyring.MockInitWithError(errors.New("The name org.freedesktop.secrets was not provided by any .service files"))
	t.Cleanup(UseKeychainStore(GoKeyringStore(), time.Second))
	c := newConfig(t, Profile{Name: "shop", Region: "ae", MerchantCode: "m"})
	res, err := c.StoreKey("shop", profLiveKey, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Storage != StorageFile || !res.Live || !strings.Contains(res.Fallback, "org.freedesktop.secrets") {
		t.Fatalf("result %+v, want the live key in the file with the reason", res)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readFile(t, c.Path()), "live_secret_key: "+profLiveKey) {
		t.Error("the key is not in the file")
	}
	if runtime.GOOS != "windows" {
		info, _ := os.Stat(c.Path())
		if info.Mode().Perm() != 0o600 {
			t.Errorf("mode %04o", info.Mode().Perm())
		}
	}
}

// blockingStore never answers, like a keychain waiting on a dialog nobody
// sees.
type blockingStore struct {
	calls int
	mu    sync.Mutex
	wait  chan struct{}
}

func (b *blockingStore) block() {
	b.mu.Lock()
	b.calls++
	b.mu.Unlock()
	<-b.wait
}
func (b *blockingStore) Set(string, string, string) error { b.block(); return nil }
func (b *blockingStore) Get(string, string) (string, error) {
	b.block()
	return "", nil
}
func (b *blockingStore) Delete(string, string) error { b.block(); return nil }

func TestKeychainTimeoutFallsBackOnce(t *testing.T) {
	store := &blockingStore{wait: make(chan struct{})}
	t.Cleanup(func() { close(store.wait) })
	t.Cleanup(UseKeychainStore(store, 20*time.Millisecond))
	c := newConfig(t, Profile{Name: "shop", Region: "ae", MerchantCode: "m"})
	res, err := c.StoreKey("shop", profTestKey, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Storage != StorageFile || !strings.Contains(res.Fallback, "did not answer within 20ms") {
		t.Fatalf("result %+v", res)
	}
	// The second key does not wait again.
	if _, err := c.StoreKey("shop", profLiveKey, true); err != nil {
		t.Fatal(err)
	}
	store.mu.Lock()
	calls := store.calls
	store.mu.Unlock()
	if calls != 1 {
		t.Errorf("the keychain was asked %d times, want once", calls)
	}
}

func TestKeychainProbe(t *testing.T) {
	none := func(string) bool { return false }
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	cases := []struct {
		name   string
		goos   string
		vars   map[string]string
		exists func(string) bool
		absent bool
	}{
		{"headless linux", "linux", nil, none, true},
		{"autolaunch only", "linux", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "autolaunch:"}, none, true},
		{"session bus", "linux", map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"}, none, false},
		{"user bus socket", "linux", nil, func(p string) bool { return p == "/run/user/1000/bus" }, false},
		{"another user's socket", "linux", nil, func(p string) bool { return p == "/run/user/0/bus" }, true},
		{"macOS", "darwin", nil, none, false},
		{"Windows", "windows", nil, none, false},
		{"plan9", "plan9", nil, none, true},
	}
	for _, tc := range cases {
		got := keychainProbe(tc.goos, env(tc.vars), 1000, tc.exists)
		if (got != "") != tc.absent {
			t.Errorf("%s: probe %q, want absent=%t", tc.name, got, tc.absent)
		}
	}
}

// TestHeadlessNeverCallsTheLibrary uses the real keychain wrapper on a
// machine without a session bus: it must answer "none" from the probe alone,
// without reaching go-keyring (here the mock, which holds an entry that
// would otherwise be returned).
func TestHeadlessNeverCallsTheLibrary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the probe decides only on Linux and the BSDs")
	}
	if fileExists("/run/user/" + strconv.Itoa(os.Getuid()) + "/bus") {
		t.Skip("this machine has a session bus")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	freshMock(t)
	if err := keyring.Set(keychainService, "acct", profTestKey); err != nil {
		t.Fatal(err)
	}
	kc := newOSKeychain()
	_, err := kc.get("acct")
	var down *KeychainUnavailableError
	if !errors.As(err, &down) || !strings.Contains(down.Reason, "D-Bus") {
		t.Fatalf("get on a headless machine: %v, want no keychain (no D-Bus)", err)
	}
}

func TestEnvironmentWinsWithoutReadingTheKeychain(t *testing.T) {
	freshMock(t)
	c := newConfig(t, Profile{Name: "shop", Region: "ae", MerchantCode: "m"})
	if _, err := c.StoreKey("shop", profTestKey, true); err != nil {
		t.Fatal(err)
	}
	// A keychain that would fail any call: the environment's key must not
	// need it.
	keyring.MockInitWithError(errors.New("locked"))
	tg, err := Resolve(c, Overrides{}, envOf(map[string]string{EnvSecretKey: envTestKey}))
	if err != nil {
		t.Fatal(err)
	}
	if tg.SecretKey != envTestKey || tg.Sources["secret_key"] != SourceEnv || tg.KeyStorage != StorageNone {
		t.Errorf("target %v %v, want the environment's key", tg, tg.Sources)
	}
	// Without it, the keychain's failure is a usage error with a way on.
	_, err = Resolve(c, Overrides{}, nil)
	var ke *KeychainError
	if !errors.As(err, &ke) {
		t.Fatalf("got %v, want a KeychainError", err)
	}
	assertUsageError(t, err)
	if !strings.Contains(ke.Hint(), EnvSecretKey) || !strings.Contains(ke.Hint(), "--insecure-storage") {
		t.Errorf("hint %q", ke.Hint())
	}
	// Described rather than used, the profile resolves with no key.
	tg, err = Resolve(c, Overrides{KeyOptional: true}, nil)
	if err != nil || tg.SecretKey != "" {
		t.Errorf("KeyOptional: %v, %v", tg, err)
	}
}

func TestKeychainEntryMissing(t *testing.T) {
	freshMock(t)
	c := newConfig(t, Profile{Name: "shop", Region: "ae", MerchantCode: "m"})
	if _, err := c.StoreKey("shop", profTestKey, true); err != nil {
		t.Fatal(err)
	}
	if err := keyring.Delete(keychainService, keychainAccount(c.Path(), "shop", false)); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(c, Overrides{}, nil)
	if err == nil || !strings.Contains(err.Error(), "no such entry") {
		t.Fatalf("got %v", err)
	}
}

func TestKeychainEntriesForgottenAfterSave(t *testing.T) {
	freshMock(t)
	c := newConfig(t, Profile{Name: "shop", Region: "ae", MerchantCode: "m"}, Profile{Name: "other", Region: "ae", MerchantCode: "m"})
	for _, k := range []string{profTestKey, profLiveKey} {
		if _, err := c.StoreKey("shop", k, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.StoreKey("other", profTestKey, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	// The test key moves to the file: its entry goes once the file says so.
	res, err := c.StoreKey("shop", profTestKey, false)
	if err != nil || res.Storage != StorageFile || !res.Replaced {
		t.Fatalf("%+v %v", res, err)
	}
	testAcct := keychainAccount(c.Path(), "shop", false)
	if _, err := keyring.Get(keychainService, testAcct); err != nil {
		t.Fatal("entry deleted before the file was saved")
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(keychainService, testAcct); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("test key entry still there after save: %v", err)
	}
	// Removing the profile drops its live entry, and leaves the other's.
	if err := c.RemoveProfile("shop"); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(keychainService, keychainAccount(c.Path(), "shop", true)); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("live key entry still there after remove: %v", err)
	}
	if _, err := keyring.Get(keychainService, keychainAccount(c.Path(), "other", false)); err != nil {
		t.Errorf("the other profile's entry went too: %v", err)
	}
	if n := c.Notices(); len(n) != 0 {
		t.Errorf("notices %q", n)
	}
}

func TestKeychainAccountsDifferPerConfigFile(t *testing.T) {
	if keychainAccount("/a/config.yaml", "p", false) == keychainAccount("/b/config.yaml", "p", false) ||
		keychainAccount("/a/config.yaml", "p", false) == keychainAccount("/a/config.yaml", "p", true) {
		t.Error("accounts collide")
	}
}

func TestSaveThroughLinkKeepsLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges")
	}
	real := filepath.Join(t.TempDir(), "dotfiles", "bnpl.yaml")
	if err := os.MkdirAll(filepath.Dir(real), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("profiles: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.Symlink(real, path); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetProfile(Profile{Name: "p", Region: "ae", MerchantCode: "m"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(path); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if !strings.Contains(readFile(t, real), "merchant_code: m") {
		t.Error("the link's target was not written")
	}
	if n := c.Notices(); len(n) != 0 {
		t.Errorf("private directories, but notices %q", n)
	}
}

func TestDirWarnings(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix modes")
	}
	open := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	// The config itself in a shared directory.
	c := &Config{path: filepath.Join(open, "config.yaml")}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if n := c.Notices(); len(n) != 1 || !strings.Contains(n[0], "can be written by other users (mode 0777)") || !strings.Contains(n[0], "chmod go-w "+open) {
		t.Errorf("notices %q", n)
	}
	// A private config directory whose link leads into a shared one.
	private := filepath.Join(t.TempDir(), "bnpl")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(private, "config.yaml")
	if err := os.Symlink(c.path, link); err != nil {
		t.Fatal(err)
	}
	lc := &Config{path: link}
	w := lc.DirWarnings()
	if len(w) != 1 || !strings.Contains(w[0], "of the file the config link leads to") {
		t.Errorf("warnings %q", w)
	}
	if err := os.Chmod(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if w := lc.DirWarnings(); len(w) != 0 {
		t.Errorf("private again, but %q", w)
	}
}

func TestBaseURLRefusesCredentials(t *testing.T) {
	c := newConfig(t)
	for raw, want := range map[string]string{
		"https://user:hunter2secret@api.example.com":  "user name or password",
		"https://tokenonly@api.example.com":           "user name or password",
		"https://api.example.com/?token=abc123secret": "query or a fragment",
		"ftp://api.example.com":                       "not an http(s) address",
	} {
		err := c.SetProfile(Profile{Name: "p", Region: "ae", MerchantCode: "m", BaseURL: raw})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", raw, err, want)
			continue
		}
		assertUsageError(t, err)
		for _, leak := range []string{"hunter2secret", "tokenonly", "abc123secret"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%s: the error shows %q: %v", raw, leak, err)
			}
		}
	}
	if _, err := Resolve(c, Overrides{}, envOf(map[string]string{EnvSecretKey: envTestKey, EnvBaseURL: "https://u:p@h.example"})); err == nil {
		t.Error("BNPL_BASE_URL with a password accepted")
	}
}
