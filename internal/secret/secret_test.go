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
