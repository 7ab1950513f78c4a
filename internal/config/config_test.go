package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/config/configtest"
)

func TestDefaultPathAndStateDir(t *testing.T) {
	cases := []struct {
		name      string
		env       map[string]string
		wantPath  string
		wantState string
	}{
		{"xdg", map[string]string{"XDG_CONFIG_HOME": "/x/cfg", "XDG_STATE_HOME": "/x/state", "HOME": "/home/m"},
			"/x/cfg/bnpl/config.yaml", "/x/state/bnpl"},
		{"home", map[string]string{"HOME": "/home/m"},
			"/home/m/.config/bnpl/config.yaml", "/home/m/.local/state/bnpl"},
		{"relative xdg is ignored", map[string]string{"XDG_CONFIG_HOME": "cfg", "XDG_STATE_HOME": "st", "HOME": "/home/m"},
			"/home/m/.config/bnpl/config.yaml", "/home/m/.local/state/bnpl"},
		{"nothing", map[string]string{}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := DefaultPath(envOf(tc.env)); got != filepath.FromSlash(tc.wantPath) {
				t.Errorf("DefaultPath = %q, want %q", got, tc.wantPath)
			}
			if got := StateDir(envOf(tc.env)); got != filepath.FromSlash(tc.wantState) {
				t.Errorf("StateDir = %q, want %q", got, tc.wantState)
			}
		})
	}
	if got := DefaultPath(nil); got != "" {
		t.Errorf("DefaultPath(nil) = %q, want empty", got)
	}
}

func TestLoadMissingFileIsEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nowhere", "config.yaml")
	c, err := Load(path)
	if err != nil {
		t.Fatalf("Load of a missing file: %v", err)
	}
	if c.Path() != path || len(c.Profiles()) != 0 || c.Current() != "" {
		t.Errorf("want an empty config at %s, got path %q, %d profiles, current %q", path, c.Path(), len(c.Profiles()), c.Current())
	}
	if w := c.PermissionWarning(); w != "" {
		t.Errorf("missing file: unexpected warning %q", w)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load must not create the directory (stat: %v)", err)
	}
}

func TestLoadEmptyPath(t *testing.T) {
	_, err := Load("")
	assertUsageError(t, err)
}

func TestSaveRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg", "bnpl")
	path := filepath.Join(dir, "config.yaml")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Profile{
		{Name: "prod", Region: "ae", MerchantCode: "shop_ae", TestSecretKey: profTestKey, LiveSecretKey: profLiveKey},
		{Name: "ksa", Region: "sa", MerchantCode: "0042", TestSecretKey: profTestKey, BaseURL: "https://proxy.example.com/tabby"},
	}
	for _, p := range want {
		if err := c.SetProfile(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetCurrent("prod"); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}

	if runtime.GOOS != "windows" {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if mode := info.Mode().Perm(); mode != 0o600 {
			t.Errorf("file mode %04o, want 0600", mode)
		}
		dinfo, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if mode := dinfo.Mode().Perm(); mode != 0o700 {
			t.Errorf("dir mode %04o, want 0700", mode)
		}
	}

	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	// Keys given to SetProfile live in the file.
	want[0].TestKeyIn, want[0].LiveKeyIn, want[1].TestKeyIn = StorageFile, StorageFile, StorageFile
	wantSorted := []Profile{want[1], want[0]}
	if !reflect.DeepEqual(got.Profiles(), wantSorted) {
		t.Errorf("reloaded profiles:\n got %#v\nwant %#v", got.Profiles(), wantSorted)
	}
	if got.Current() != "prod" {
		t.Errorf("current = %q, want prod", got.Current())
	}
	if w := got.PermissionWarning(); w != "" {
		t.Errorf("saved file: unexpected warning %q", w)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"current_profile: prod", "merchant_code:", "test_secret_key:", "live_secret_key:", "base_url:"} {
		if !strings.Contains(string(data), field) {
			t.Errorf("file lacks %q:\n%s", field, data)
		}
	}
	// A merchant code of digits must stay a string, leading zero and all.
	if p, _ := got.Profile("ksa"); p.MerchantCode != "0042" {
		t.Errorf("merchant code = %q, want 0042", p.MerchantCode)
	}
}

func TestSaveKeepsUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	configtest.WriteFile(t, path, `
telemetry: false
future:
  setting.with.dots: 3
current_profile: Main
profiles:
  main:
    region: AE
    merchant_code: 12345
    test_secret_key: `+profTestKey+`
    keyring: true
`, 0o600)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := c.Profile("MAIN")
	if !ok {
		t.Fatal("profile lookup must ignore case")
	}
	if p.Region != "ae" || p.MerchantCode != "12345" || c.Current() != "main" {
		t.Errorf("got region %q merchant %q current %q; want ae, 12345, main", p.Region, p.MerchantCode, c.Current())
	}
	p.MerchantCode = "new_code"
	if err := c.SetProfile(p); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"telemetry: false", "setting.with.dots: 3", "keyring: true", "merchant_code: new_code"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("saved file lacks %q:\n%s", want, data)
		}
	}
}

func TestSaveIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	c := newConfig(t, Profile{Name: "a", Region: "ae", MerchantCode: "m", TestSecretKey: profTestKey})
	c.path = path
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// A reader holding the old file keeps seeing it whole: the new content
	// arrives as a new file renamed into place, not by rewriting in place.
	old, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	oldData, _ := os.ReadFile(path)

	if err := c.SetProfile(Profile{Name: "b", Region: "sa", MerchantCode: "n", TestSecretKey: profTestKey}); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, after) {
		t.Error("Save rewrote the file in place; want a new file renamed over it")
	}
	buf := make([]byte, len(oldData)+10)
	n, _ := old.Read(buf)
	if string(buf[:n]) != string(oldData) {
		t.Errorf("the old file changed under its reader: %q", buf[:n])
	}
	assertOnlyFile(t, dir, "config.yaml")
}

func TestSaveFailureLeavesNoTempFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	c := newConfig(t, Profile{Name: "a", Region: "ae", MerchantCode: "m", TestSecretKey: profTestKey})
	c.path = path
	// A non-empty directory where the file should be makes the rename
	// fail after the temporary file was written.
	configtest.WriteFile(t, filepath.Join(path, "keep"), "x", 0o600)
	err := c.Save()
	if err == nil {
		t.Fatal("want an error saving over a directory")
	}
	assertNoKey(t, "error", err.Error())
	assertOnlyFile(t, dir, "config.yaml")
	if data, err := os.ReadFile(filepath.Join(path, "keep")); err != nil || string(data) != "x" {
		t.Errorf("what was at the path must survive: %q, %v", data, err)
	}
}

func assertOnlyFile(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != name {
		t.Errorf("dir holds %v, want only %s (no temporary files)", names, name)
	}
}

func TestSaveFollowsSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "bnpl.yaml")
	configtest.WriteFile(t, real, "profiles: {}\n", 0o600)
	link := filepath.Join(dir, "config.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	c, err := Load(link)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetProfile(Profile{Name: "a", Region: "ae", MerchantCode: "m"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link must stay a link (%v)", err)
	}
	if data, _ := os.ReadFile(real); !strings.Contains(string(data), "merchant_code: m") {
		t.Errorf("the link's target was not written:\n%s", data)
	}
}

func TestPermissionWarning(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("mode bits do not apply on Windows")
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	configtest.WriteFile(t, path, "current_profile: \"\"\n", 0o644)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	w := c.PermissionWarning()
	for _, want := range []string{"0644", "chmod 600 " + path} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o660} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(c.PermissionWarning(), fmt.Sprintf("%04o", mode)) {
			t.Errorf("mode %04o: no warning", mode)
		}
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if w := c.PermissionWarning(); w != "" {
		t.Errorf("0600: unexpected warning %q", w)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if w := c.PermissionWarning(); w != "" {
		t.Errorf("after Save: unexpected warning %q", w)
	}
}

func TestPermissionWarningQuotesOddPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("mode bits do not apply on Windows")
	}
	path := filepath.Join(t.TempDir(), "my config's", "config.yaml")
	configtest.WriteFile(t, path, "", 0o644)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `chmod 600 '` + strings.ReplaceAll(path, "'", `'\''`) + `'`
	if w := c.PermissionWarning(); !strings.HasSuffix(w, want) {
		t.Errorf("warning %q does not end with %q", w, want)
	}
}

func TestMalformedFile(t *testing.T) {
	cases := []struct {
		name     string
		content  string
		wantLine int
	}{
		{"tab indent", "profiles:\n  a:\n\tregion: ae\n", 3},
		{"unclosed list", "profiles: [\n", 1},
		{"key on a bad line", "current_profile: a\nprofiles:\n  a:\n    test_secret_key: \"sk_test_FILEKEYMIDDLE_9999\n", 4},
		{"profiles not a map", "profiles: 3\n", 0},
		{"profile not a map", "profiles:\n  a: sk_test_FILEKEYMIDDLE_9999\n", 0},
		{"field not a scalar", "profiles:\n  a:\n    test_secret_key: [sk_test_FILEKEYMIDDLE_9999]\n", 0},
		{"top level list", "- sk_test_FILEKEYMIDDLE_9999\n", 1},
		// The parser names line 2, where the mapping began; the bad
		// indent is on line 5.
		{"bad indent", "current_profile: a\nprofiles:\n    a:\n        region: ae\n      merchant_code: x\n", 5},
		{"unclosed flow on line 5", "current_profile: a\nprofiles:\n    a:\n        region: ae\n        merchant_code: [x\n", 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			configtest.WriteFile(t, path, tc.content, 0o600)
			_, err := Load(path)
			assertUsageError(t, err)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("want a *FileError, got %T %v", err, err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if tc.wantLine != 0 && fe.Line != tc.wantLine {
				t.Errorf("line = %d, want %d (%v)", fe.Line, tc.wantLine, err)
			}
			if tc.wantLine != 0 && !strings.Contains(err.Error(), fmt.Sprintf("line %d", tc.wantLine)) {
				t.Errorf("error %q does not name line %d", err, tc.wantLine)
			}
		})
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	// A directory at the path cannot be read as a file.
	if _, err := Load(dir); err == nil {
		t.Error("want an error loading a directory")
	}
}

func TestSetProfileValidation(t *testing.T) {
	good := Profile{Name: "prod", Region: "ae", MerchantCode: "m", TestSecretKey: profTestKey, LiveSecretKey: profLiveKey}
	cases := []struct {
		name  string
		edit  func(*Profile)
		field string
	}{
		{"bad region", func(p *Profile) { p.Region = "kw" }, "region"},
		{"empty region", func(p *Profile) { p.Region = "" }, "region"},
		{"empty merchant", func(p *Profile) { p.MerchantCode = "  " }, "merchant_code"},
		{"live key as test", func(p *Profile) { p.TestSecretKey = profLiveKey }, "test_secret_key"},
		{"test key as live", func(p *Profile) { p.LiveSecretKey = profTestKey }, "live_secret_key"},
		{"public key as test", func(p *Profile) { p.TestSecretKey = "pk_test_PROFTESTMIDDLE_0001" }, "test_secret_key"},
		{"bare prefix", func(p *Profile) { p.LiveSecretKey = "sk_" }, "live_secret_key"},
		{"empty name", func(p *Profile) { p.Name = "" }, "name"},
		{"upper-case name", func(p *Profile) { p.Name = "Prod" }, "name"},
		{"name with dot", func(p *Profile) { p.Name = "a.b" }, "name"},
		{"name with leading dash", func(p *Profile) { p.Name = "-x" }, "name"},
		{"base url without scheme", func(p *Profile) { p.BaseURL = "api.example.com" }, "base_url"},
		{"base url ftp", func(p *Profile) { p.BaseURL = "ftp://x" }, "base_url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newConfig(t)
			p := good
			tc.edit(&p)
			err := c.SetProfile(p)
			assertUsageError(t, err)
			var ie *InvalidError
			if !errors.As(err, &ie) || ie.Field != tc.field {
				t.Errorf("want an InvalidError on %s, got %v", tc.field, err)
			}
			if len(c.Profiles()) != 0 {
				t.Error("a refused profile must not be stored")
			}
		})
	}

	c := newConfig(t)
	p := good
	p.Region, p.Name, p.LiveSecretKey = " SA ", "ksa_2", ""
	if err := c.SetProfile(p); err != nil {
		t.Fatalf("a valid profile (region folded, no live key) was refused: %v", err)
	}
	if got, _ := c.Profile("ksa_2"); got.Region != "sa" {
		t.Errorf("region = %q, want sa", got.Region)
	}
}

func TestRemoveAndCurrent(t *testing.T) {
	c := newConfig(t,
		Profile{Name: "a", Region: "ae", MerchantCode: "m"},
		Profile{Name: "b", Region: "sa", MerchantCode: "n"},
	)
	err := c.SetCurrent("zz")
	assertUsageError(t, err)
	var nf *ProfileNotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "a, b") {
		t.Errorf("want a ProfileNotFoundError listing a, b; got %v", err)
	}
	if err := c.SetCurrent("B"); err != nil || c.Current() != "b" {
		t.Fatalf("SetCurrent(B): %v, current %q", err, c.Current())
	}
	assertUsageError(t, c.RemoveProfile("zz"))
	if err := c.RemoveProfile("b"); err != nil {
		t.Fatal(err)
	}
	if c.Current() != "" {
		t.Errorf("removing the current profile must clear current, got %q", c.Current())
	}
	if names := c.profileNames(); !reflect.DeepEqual(names, []string{"a"}) {
		t.Errorf("profiles = %v, want [a]", names)
	}
	if err := c.SetCurrent(""); err != nil {
		t.Errorf("clearing current: %v", err)
	}
}

func TestProfileRenderingMasksKeys(t *testing.T) {
	p := Profile{Name: "prod", Region: "ae", MerchantCode: "m", TestSecretKey: profTestKey, LiveSecretKey: profLiveKey}
	js, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("p", "profile", p)
	for _, s := range []string{fmt.Sprint(p), fmt.Sprintf("%v %+v %#v %s", p, p, p, p), fmt.Sprintf("%v", &p), string(js), logged.String()} {
		assertNoKey(t, "rendered profile", s)
	}
	if !strings.Contains(string(js), `"test_secret_key":"sk_test_****0001"`) {
		t.Errorf("JSON does not show the masked key: %s", js)
	}
}
