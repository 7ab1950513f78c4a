package config

import "strings"

// RemoveKeys forgets a profile's test and/or live key, wherever each lives:
// a key in the file leaves it with the next Save, a key in the OS keychain
// has its entry deleted after that Save. The profile itself (its region,
// merchant code and base URL) stays. It reports which slots held a key.
func (c *Config) RemoveKeys(name string, test, live bool) (removedTest, removedLive bool, err error) {
	key := strings.ToLower(strings.TrimSpace(name))
	sp, ok := c.profiles[key]
	if !ok {
		return false, false, &ProfileNotFoundError{Name: name, Known: c.profileNames()}
	}
	for _, slot := range []struct {
		want    bool
		live    bool
		value   *string
		in      *Storage
		removed *bool
	}{{test, false, &sp.TestSecretKey, &sp.TestKeyIn, &removedTest}, {live, true, &sp.LiveSecretKey, &sp.LiveKeyIn, &removedLive}} {
		if !slot.want || *slot.in == StorageNone {
			continue
		}
		if *slot.in == StorageKeychain {
			c.forget = append(c.forget, keychainAccount(c.path, key, slot.live))
		}
		*slot.value, *slot.in = "", StorageNone
		*slot.removed = true
	}
	c.profiles[key] = sp
	return removedTest, removedLive, nil
}
