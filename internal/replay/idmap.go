package replay

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/bnpl-cli/bnpl/internal/secret"
)

var uuidShape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
})

func isUUID(s string) bool { return len(s) == 36 && uuidShape().MatchString(s) }

// IDMap maps the service's values to the sandbox's: the ids each side
// gave the same session, payment, capture, refund, webhook, dispute or
// attachment, learnt as answers are compared, and the merchant code. It is
// safe for concurrent use.
type IDMap struct {
	mu  sync.Mutex
	fwd map[string]string
	rev map[string]string
	// base is what a clone was made from: read through, never written.
	base *IDMap
}

// NewIDMap returns an empty map.
func NewIDMap() *IDMap { return &IDMap{fwd: map[string]string{}, rev: map[string]string{}} }

// Get answers the sandbox's value for a recorded one.
func (m *IDMap) Get(recorded string) (string, bool) { return m.find(recorded, false) }

// Reverse answers the recorded value a sandbox value stands for.
func (m *IDMap) Reverse(sandbox string) (string, bool) { return m.find(sandbox, true) }

// find answers what v stands for, by rev when reverse, else by fwd: m's
// own first, then what m was cloned from.
func (m *IDMap) find(v string, reverse bool) (string, bool) {
	for ; m != nil; m = m.base {
		side := m.fwd
		if reverse {
			side = m.rev
		}
		m.mu.Lock()
		w, ok := side[v]
		m.mu.Unlock()
		if ok {
			return w, true
		}
	}
	return "", false
}

// Set records that the sandbox's value stands for the recorded one,
// unless either is mapped already; it tells whether it did.
func (m *IDMap) Set(recorded, sandbox string) bool {
	if recorded == "" || sandbox == "" {
		return false
	}
	if m.base != nil {
		if _, ok := m.base.Get(recorded); ok {
			return false
		}
		if _, ok := m.base.Reverse(sandbox); ok {
			return false
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.fwd[recorded]; ok {
		return false
	}
	if _, ok := m.rev[sandbox]; ok {
		return false
	}
	m.fwd[recorded], m.rev[sandbox] = sandbox, recorded
	return true
}

// clone is a copy, for a comparison whose learning must not count: it
// reads m through and keeps what it learns to itself, so that making one
// costs nothing however many ids m holds (m must not change meanwhile).
func (m *IDMap) clone() *IDMap {
	c := NewIDMap()
	c.base = m
	return c
}

// snapshot is a copy of m as it is now, which later changes of m do not
// reach (a clone reads m through).
func (m *IDMap) snapshot() *IDMap {
	c := NewIDMap()
	if m.base != nil {
		b := m.base.snapshot()
		c.fwd, c.rev = b.fwd, b.rev
	}
	m.mu.Lock()
	for k, v := range m.fwd {
		c.fwd[k], c.rev[v] = v, k
	}
	m.mu.Unlock()
	return c
}

// Len counts the mapped values.
func (m *IDMap) Len() int {
	m.mu.Lock()
	n := len(m.fwd)
	m.mu.Unlock()
	if m.base != nil {
		n += m.base.Len()
	}
	return n
}

var uuidInside = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
})

// Inside maps the ids inside a text ("dispute ID refunded").
func (m *IDMap) Inside(s string) string {
	if len(s) <= 36 {
		return s
	}
	return uuidInside().ReplaceAllStringFunc(s, func(id string) string {
		if v, ok := m.Get(id); ok {
			return v
		}
		return id
	})
}

// Path maps each segment of a URL path.
func (m *IDMap) Path(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if v, ok := m.Get(s); ok {
			parts[i] = v
		}
	}
	return strings.Join(parts, "/")
}

// Query maps each value of a raw query whose whole value is mapped.
func (m *IDMap) Query(raw string) string {
	if raw == "" {
		return raw
	}
	parts := strings.Split(raw, "&")
	for i, kv := range parts {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if mapped, ok := m.Get(v); ok {
			parts[i] = k + "=" + mapped
		}
	}
	return strings.Join(parts, "&")
}

// JSON maps every string of a JSON body that is a mapped value whole, and
// sets every "merchant_code" to code (when code is not empty). A body that
// is not JSON is returned as it is.
func (m *IDMap) JSON(body []byte, code string) []byte {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return body
	}
	out, _ := secret.EditJSON(body, func(doc any) (any, bool) { return m.edit(doc, "", code) })
	return out
}

func (m *IDMap) edit(v any, key, code string) (any, bool) {
	switch t := v.(type) {
	case string:
		if key == "merchant_code" && code != "" {
			return code, t != code
		}
		if mapped, ok := m.Get(t); ok {
			return mapped, true
		}
	case map[string]any:
		changed := false
		for k, child := range t {
			if nv, c := m.edit(child, k, code); c {
				t[k], changed = nv, true
			}
		}
		return t, changed
	case []any:
		changed := false
		for i, child := range t {
			if nv, c := m.edit(child, key, code); c {
				t[i], changed = nv, true
			}
		}
		return t, changed
	}
	return v, false
}

// decode reads a JSON document with its numbers exact; ok is false for
// anything else.
func decode(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}
