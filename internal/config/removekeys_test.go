package config

import (
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

// Removing keys takes them out of the keychain and the file and keeps the
// profile: its region and merchant code.
func TestRemoveKeys(t *testing.T) {
	freshMock(t)
	c := newConfig(t, Profile{Name: "shop", Region: "ae", MerchantCode: "m"})
	if _, err := c.StoreKey("shop", profTestKey, true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StoreKey("shop", profLiveKey, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	account := keychainAccount(c.Path(), "shop", false)
	if _, err := keyring.Get(keychainService, account); err != nil {
		t.Fatalf("test key not in the keychain: %v", err)
	}

	rt, rl, err := c.RemoveKeys("Shop", true, true)
	if err != nil || !rt || !rl {
		t.Fatalf("RemoveKeys: test %v live %v err %v", rt, rl, err)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(keychainService, account); err == nil {
		t.Error("the keychain still holds the test key")
	}
	text := readFile(t, c.Path())
	assertNoKey(t, "config file", text)
	if strings.Contains(text, "secret_key") {
		t.Errorf("the file still names a key:\n%s", text)
	}
	again, err := Load(c.Path())
	if err != nil {
		t.Fatal(err)
	}
	p, ok := again.Profile("shop")
	if !ok || p.Region != "ae" || p.MerchantCode != "m" || p.TestKeyIn != StorageNone || p.LiveKeyIn != StorageNone {
		t.Fatalf("profile after logout: %v (found %v)", p, ok)
	}

	// Nothing left to remove: no error, nothing reported.
	if rt, rl, err := again.RemoveKeys("shop", true, true); err != nil || rt || rl {
		t.Errorf("second RemoveKeys: %v %v %v", rt, rl, err)
	}
	if _, _, err := again.RemoveKeys("nope", true, true); err == nil {
		t.Error("RemoveKeys of a missing profile succeeded")
	}
}
