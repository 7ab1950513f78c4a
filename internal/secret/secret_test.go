package secret

import "testing"

func TestMaskKey(t *testing.T) {
	cases := map[string]string{
		"":                         "",
		"sk_test_ae_sandbox":       "sk_test_****dbox",
		"sk_test_abc":              "sk_test_****",
		"sk_live0123456789abcd":    "sk_****abcd",
		"weird":                    "****",
		"sk_test_0123456789abcdef": "sk_test_****cdef",
	}
	for in, want := range cases {
		if got := MaskKey(in); got != want {
			t.Errorf("MaskKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMaskValue(t *testing.T) {
	if got := MaskValue("12345678"); got != "****" {
		t.Errorf("8 chars: %q", got)
	}
	if got := MaskValue("123456789"); got != "****6789" {
		t.Errorf("9 chars: %q", got)
	}
	if got := MaskAuthorization("Bearer sk_test_0123456789abcdef"); got != "Bearer sk_test_****cdef" {
		t.Errorf("auth: %q", got)
	}
}

func TestMaskValueCountsCharacters(t *testing.T) {
	if got := MaskValue("ééééé"); got != "****" {
		t.Errorf("5 characters: %q", got)
	}
	if got := MaskValue("密码密码密码密码密"); got != "****码密码密" {
		t.Errorf("9 characters: %q", got)
	}
}

func TestRedactURL(t *testing.T) {
	cases := map[string]string{
		"http://user:passw0rd@127.0.0.1:8700": "http://****@127.0.0.1:8700",
		"https://api.tabby.ai":                "https://api.tabby.ai",
		"http://u:p@[bad":                     "http://****@[bad",
	}
	for in, want := range cases {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
