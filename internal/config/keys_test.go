package config

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestKeyKind(t *testing.T) {
	cases := []struct {
		key      string
		live, ok bool
	}{
		{"sk_test_abc", false, true},
		{"sk_abc", true, true},
		{"sk_testing_abc", true, true}, // only sk_test_ exactly marks a test key
		{"sk_test_", false, false},
		{"sk_", false, false},
		{"pk_test_abc", false, false},
		{"pk_abc", false, false},
		{"SK_test_abc", false, false},
		{"", false, false},
	}
	for _, tc := range cases {
		live, ok := KeyKind(tc.key)
		if live != tc.live || ok != tc.ok {
			t.Errorf("KeyKind(%q) = %v, %v; want %v, %v", tc.key, live, ok, tc.live, tc.ok)
		}
	}
}

func TestReadKey(t *testing.T) {
	good := []struct{ in, want string }{
		{"sk_test_STDINMIDDLE_1\n", "sk_test_STDINMIDDLE_1"},
		{"  sk_STDINMIDDLE_2 \r\n", "sk_STDINMIDDLE_2"},
		{"sk_STDINMIDDLE_3", "sk_STDINMIDDLE_3"}, // no final newline
	}
	for _, tc := range good {
		got, err := ReadKey(strings.NewReader(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("ReadKey(%q) = %q, %v", tc.in, got, err)
		}
	}

	bad := []string{
		"",
		"\n",
		"   \nsk_test_STDINMIDDLE_4\n", // the key must be on the first line
		"pk_test_STDINMIDDLE_5\n",
		"hello STDINMIDDLE\n",
		"sk_test_STDIN MIDDLE\n",
		"sk_test_\n",
		"sk_test_STDINMIDDLE" + strings.Repeat("x", maxKeyLine) + "\n",
	}
	for _, in := range bad {
		_, err := ReadKey(strings.NewReader(in))
		assertUsageError(t, err)
	}

	if _, err := ReadKey(iotest.ErrReader(io.ErrUnexpectedEOF)); err == nil {
		t.Error("a read failure must be an error")
	}
}

func TestReadKeyLeavesTheRest(t *testing.T) {
	r := strings.NewReader("sk_test_STDINMIDDLE_1\nheader value\n")
	if _, err := ReadKey(r); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	if string(rest) != "header value\n" {
		t.Errorf("ReadKey consumed past its line; rest = %q", rest)
	}
}

func TestRegions(t *testing.T) {
	for _, r := range []string{"ae", "sa"} {
		if !ValidRegion(r) {
			t.Errorf("ValidRegion(%q) = false", r)
		}
	}
	for _, r := range []string{"", "AE", "kw", "us"} {
		if ValidRegion(r) {
			t.Errorf("ValidRegion(%q) = true", r)
		}
		if _, ok := RegionBaseURL(r); ok {
			t.Errorf("RegionBaseURL(%q) ok", r)
		}
		if RegionCurrencies(r) != nil {
			t.Errorf("RegionCurrencies(%q) not nil", r)
		}
	}
	if u, _ := RegionBaseURL("ae"); u != "https://api.tabby.ai" {
		t.Errorf("ae base = %q", u)
	}
	if u, _ := RegionBaseURL("sa"); u != "https://api.tabby.sa" {
		t.Errorf("sa base = %q", u)
	}
	if got := RegionCurrencies("ae"); !reflect.DeepEqual(got, []string{"AED", "KWD"}) {
		t.Errorf("ae currencies = %v", got)
	}
	if got := RegionCurrencies("sa"); !reflect.DeepEqual(got, []string{"SAR"}) {
		t.Errorf("sa currencies = %v", got)
	}
	// Callers may change what they get without changing the next answer.
	RegionCurrencies("ae")[0] = "XXX"
	if RegionCurrencies("ae")[0] != "AED" {
		t.Error("RegionCurrencies shares its slice")
	}
}

func TestEmbeddedMerchants(t *testing.T) {
	ms := EmbeddedMerchants()
	if len(ms) != 3 || ms[0].Code != "ae-sandbox" {
		t.Fatalf("want the three built-ins, ae-sandbox first; got %+v", ms)
	}
	for _, m := range ms {
		if live, ok := KeyKind(m.TestKey); !ok || live {
			t.Errorf("%s: test key %q is not a test key", m.Code, m.TestKey)
		}
		if live, ok := KeyKind(m.LiveKey); !ok || !live {
			t.Errorf("%s: live key %q is not a live key", m.Code, m.LiveKey)
		}
		currencies := RegionCurrencies(m.Region)
		found := false
		for _, c := range currencies {
			found = found || c == m.Currency
		}
		if !found {
			t.Errorf("%s: currency %s is not one of region %s's %v", m.Code, m.Currency, m.Region, currencies)
		}
		if _, ok := EmbeddedBaseURL(m.Region); !ok {
			t.Errorf("%s: no embedded base URL for region %s", m.Code, m.Region)
		}
	}
	want := EmbeddedMerchant{Code: "kw-sandbox", Region: "ae", Currency: "KWD", TestKey: "sk_test_kw_sandbox", LiveKey: "sk_kw_sandbox"}
	if ms[1] != want {
		t.Errorf("kw-sandbox = %+v, want %+v", ms[1], want)
	}
}

func TestRedactKeys(t *testing.T) {
	got := redactKeys(`bad "sk_test_FILEKEYMIDDLE_9999" and sk_FILEKEYMIDDLE_8888: end; http://h/sk_FILEKEYMIDDLE_7777`)
	assertNoKey(t, "redacted", got)
	for _, want := range []string{`"sk_test_****9999"`, "sk_****8888:", "/sk_****7777"} {
		if !strings.Contains(got, want) {
			t.Errorf("redactKeys = %q, lacks %q", got, want)
		}
	}
	// Prefixes in advice and words that merely contain sk_ stay as they are.
	for _, keep := range []string{"needs a live key (sk_...)", "keys start with sk_test_ (test) or sk_ (live)", "task_list disk_usage"} {
		if got := redactKeys(keep); got != keep {
			t.Errorf("redactKeys(%q) = %q", keep, got)
		}
	}
}
