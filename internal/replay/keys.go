package replay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// Credentials kinds: what a recorded Authorization header was, judged by
// its form and by what the service answered it.
const (
	credNone      = "none"      // no Authorization header
	credMalformed = "malformed" // not "Bearer KEY", or a value that is no secret key
	credUnknown   = "unknown"   // a key the service did not know (it answered 401)
	credForeign   = "foreign"   // a key of the other region's merchant (403 region mismatch)
	credValid     = "valid"     // a merchant's key
)

// keyPlan is what the recording says of one recorded key (masked, with
// its key id): its kind, the merchant it belongs to, and its mode.
type keyPlan struct {
	name      string
	kind      string
	live      bool
	code      string // the merchant code it was used with, when a request named one and succeeded
	currency  string // the currency of its first successful checkout
	index     int    // the order of its first use, from 1
	group     int    // keys of one merchant share a group
	succeeded bool   // a request with it succeeded
}

// wrongRegion is the service's message for a key at the other region's
// address.
const wrongRegion = "merchant region does not match cluster region"

// authScheme splits a recorded Authorization value; ok is false unless it
// is "Bearer KEY" with a key of the secret-key form (sk_...).
func authScheme(v string) (key string, ok bool) {
	scheme, key, cut := strings.Cut(strings.TrimSpace(v), " ")
	key = strings.TrimSpace(key)
	if !cut || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(key, "sk_") {
		return "", false
	}
	return key, true
}

// planKeys judges every recorded key, and groups the keys of one merchant
// (those a successful request named the same merchant code with).
func planKeys(rec *Recording) map[string]*keyPlan {
	plans := map[string]*keyPlan{}
	var order []*keyPlan
	for _, x := range rec.Exchanges {
		if !x.IsService() || x.Key == "" {
			continue
		}
		if _, ok := authScheme(x.Header.Get("Authorization")); !ok {
			continue
		}
		p := plans[x.keyName()]
		if p == nil {
			p = &keyPlan{name: x.keyName(), live: x.Live(), kind: credValid, index: len(order) + 1}
			plans[p.name] = p
			order = append(order, p)
		}
		p.learn(x)
	}
	groups := map[string]int{}
	for _, p := range order {
		p.group = p.index
		if p.kind == credValid && p.code != "" {
			if g, ok := groups[p.code]; ok {
				p.group = g
			} else {
				groups[p.code] = p.group
			}
		}
	}
	return plans
}

// learn reads what one exchange tells of its key.
func (p *keyPlan) learn(x *Exchange) {
	ok := x.Status >= 200 && x.Status <= 299
	switch {
	case ok:
		// A key once answered with a success is a merchant's, whatever
		// else it met (a 401 for a merchant_code it is not bound to).
		p.kind, p.succeeded = credValid, true
		if p.code == "" {
			p.code = merchantCode(x)
		}
		if cur := checkoutCurrency(x); cur != "" && p.currency == "" {
			p.currency = cur
		}
	case p.succeeded:
	case x.Status == http.StatusUnauthorized && !codeRefusal(x):
		p.kind = credUnknown
	case x.Status == http.StatusForbidden && strings.Contains(string(x.answer()), wrongRegion):
		p.kind = credForeign
	}
}

// codeRefusal tells a checkout's 401 that may be the merchant_code's,
// not the key's: it names a code, so the key is judged by other requests.
func codeRefusal(x *Exchange) bool {
	return checkoutCurrency(x) != "" && merchantCode(x) != "" && strings.Contains(string(x.answer()), "merchant is null")
}

// merchantCode is the merchant code a request named: X-Merchant-Code, or
// the body's merchant_code.
func merchantCode(x *Exchange) string {
	if c := x.Header.Get("X-Merchant-Code"); c != "" {
		return c
	}
	var body struct {
		Code string `json:"merchant_code"`
	}
	if json.Unmarshal(x.body(), &body) == nil {
		return body.Code
	}
	return ""
}

// otherRegion is the region that is not r.
func otherRegion(r string) string {
	if r == "sa" {
		return "ae"
	}
	return "sa"
}

// currencyRegion is the region a currency is paid in (SAR in sa; AED and
// KWD in ae), else def.
func currencyRegion(currency, def string) string {
	switch strings.ToUpper(currency) {
	case "SAR":
		return "sa"
	case "AED", "KWD":
		return "ae"
	}
	return def
}

func regionCurrency(region, currency string) string {
	if currency != "" {
		return currency
	}
	if region == "sa" {
		return "SAR"
	}
	return "AED"
}

// PlanMerchants are the merchants a fresh sandbox needs to replay the
// recording as it was made: one for each merchant the recording's keys
// belong to, in the recording's region (the other region for a key the
// service refused there), with the recorded merchant code when a
// successful request named one. Keys that the service did not know get no
// merchant: the sandbox will not know them either.
func PlanMerchants(rec *Recording) []sandbox.Merchant {
	region := Region(rec)
	plans := planKeys(rec)
	byGroup := map[int]*sandbox.Merchant{}
	var order []int
	for _, name := range sortedPlanNames(plans) {
		p := plans[name]
		if p.kind != credValid && p.kind != credForeign {
			continue
		}
		m := byGroup[p.group]
		if m == nil {
			r := region
			if p.kind == credForeign {
				r = otherRegion(region)
			} else {
				// The service took the currency from this merchant: its
				// region is the currency's, whatever the recording's head
				// says (a CLI told only a base URL takes ae for any).
				r = currencyRegion(p.currency, r)
			}
			code := p.code
			if code == "" {
				code = fmt.Sprintf("verify-%d", p.group)
			}
			m = &sandbox.Merchant{Code: code, Region: r, Currency: regionCurrency(r, p.currency),
				Name: "Verify Store " + code, TokensEnabled: true}
			byGroup[p.group] = m
			order = append(order, p.group)
		}
		if m.Currency == regionCurrency(m.Region, "") && p.currency != "" {
			m.Currency, m.Region = p.currency, currencyRegion(p.currency, m.Region)
		}
		if p.live && m.LiveKey == "" {
			m.LiveKey = fmt.Sprintf("sk_verify_%d_live", p.group)
		} else if !p.live && m.TestKey == "" {
			m.TestKey = fmt.Sprintf("sk_test_verify_%d", p.group)
		}
	}
	var out []sandbox.Merchant
	for _, g := range order {
		m := byGroup[g]
		if m.TestKey == "" {
			m.TestKey = fmt.Sprintf("sk_test_verify_%d", g)
		}
		if m.LiveKey == "" {
			m.LiveKey = fmt.Sprintf("sk_verify_%d_live", g)
		}
		out = append(out, *m)
	}
	// A recording with no merchant's key still needs one merchant for
	// the verifier's own webhooks.
	if len(out) == 0 {
		out = append(out, sandbox.Merchant{Code: "verify-0", Region: region, Currency: regionCurrency(region, ""),
			Name: "Verify Store", TestKey: "sk_test_verify_0", LiveKey: "sk_verify_0_live"})
	}
	return out
}

// sortedPlanNames lists the plans in the order their keys first appear.
func sortedPlanNames(plans map[string]*keyPlan) []string {
	names := make([]string, 0, len(plans))
	for n := range plans {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return plans[names[i]].index < plans[names[j]].index })
	return names
}

// unknownKey is a key of the recorded one's form that no sandbox merchant
// has: a key the service did not know stays unknown.
func unknownKey(masked, keyID string) string {
	prefix := "sk_"
	if strings.HasPrefix(masked, "sk_test_") {
		prefix = "sk_test_"
	}
	return prefix + "unknown_" + keyID
}
