package money

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in, cur string
		want    string
		ok      bool
	}{
		{"100", "AED", "100", true},
		{"100.00", "AED", "100", true},
		{"100.005", "AED", "", false},
		{"100.005", "KWD", "100.005", true},
		{"1.0001", "KWD", "", false},
		{"0.01", "SAR", "0.01", true},
		{"-5", "SAR", "-5", true},
		{"1e3", "AED", "", false},
		{"NaN", "AED", "", false},
		{"", "AED", "", false},
		{"1,000", "AED", "", false},
		{"1.", "AED", "", false},
		{".5", "AED", "", false},
		// No currency: the syntax only, any number of places.
		{"0.000", "", "0", true},
		{"12.34567", "", "12.34567", true},
		{"NaN", "", "", false},
		{" 7.5 ", "aed", "7.5", true},
	}
	for _, c := range cases {
		d, err := Parse(c.in, c.cur)
		if c.ok != (err == nil) {
			t.Errorf("Parse(%q,%q) err=%v, want ok=%v", c.in, c.cur, err, c.ok)
			continue
		}
		if err != nil {
			var me *Error
			if !errors.As(err, &me) {
				t.Errorf("Parse(%q) error %T is not *money.Error", c.in, err)
			}
			continue
		}
		if d.String() != c.want {
			t.Errorf("Parse(%q)=%s want %s", c.in, d, c.want)
		}
	}
}

func TestSigns(t *testing.T) {
	if _, err := ParsePositive("0", "AED"); err == nil {
		t.Error("zero accepted as positive")
	}
	if _, err := ParsePositive("-1", "AED"); err == nil {
		t.Error("negative accepted as positive")
	}
	if _, err := ParseNonNegative("0", "AED"); err != nil {
		t.Errorf("zero refused as non-negative: %v", err)
	}
	if _, err := ParseNonNegative("-0.01", "AED"); err == nil {
		t.Error("negative accepted as non-negative")
	}
}

func TestFormat(t *testing.T) {
	d, _ := Parse("12.5", "KWD")
	if got := Format(d, "KWD"); got != "12.500" {
		t.Errorf("Format KWD = %s", got)
	}
	if got := Format(d, "AED"); got != "12.50" {
		t.Errorf("Format AED = %s", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1", "1.23", "-0.001", "NaN", "1e9", "", "١٢"} {
		f.Add(s, "KWD")
	}
	f.Add("0.000", "")
	f.Add(" 12.3456 ", "")
	f.Add("1.001", "aed")
	f.Fuzz(func(t *testing.T, s, cur string) {
		d, err := Parse(s, cur)
		if err != nil {
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("rejection is not a validation error: %T", err)
			}
			return
		}
		// Accepted: a plain decimal, read exactly as written.
		trimmed := strings.TrimSpace(s)
		if !plainDecimal(trimmed) || !d.Equal(decimal.RequireFromString(trimmed)) {
			t.Fatalf("accepted %q as %s", s, d)
		}
		// The places are bounded by a currency's, and only checked when
		// a currency is given.
		if cur != "" && d.Exponent() < -Places(cur) {
			t.Fatalf("accepted %q with more than %d places", s, Places(cur))
		}
	})
}

func TestDisplay(t *testing.T) {
	for _, tt := range []struct{ amount, currency, want string }{
		{"1250", "AED", "1250.00 AED"},
		{"1250.5", "aed", "1250.50 AED"},
		{"12.5", "KWD", "12.500 KWD"},
		{"0", "SAR", "0.00 SAR"},
		{"100.00", "", "100.00"},
		{"", "AED", ""},
		{"n/a", "AED", "n/a AED"},
	} {
		if got := DisplayString(tt.amount, tt.currency); got != tt.want {
			t.Errorf("DisplayString(%q, %q) = %q, want %q", tt.amount, tt.currency, got, tt.want)
		}
	}
}

func TestFormatStringAndNoRounding(t *testing.T) {
	for _, tc := range []struct{ in, cur, want string }{
		{"45.75", "KWD", "45.750"}, {"1250", "AED", "1250.00"}, {"250.5", "SAR", "250.50"},
		{"10.005", "AED", "10.005"}, {"abc", "AED", "abc"}, {"1e3", "AED", "1e3"}, {"5", "XYZ", "5"},
	} {
		if got := FormatString(tc.in, tc.cur); got != tc.want {
			t.Errorf("FormatString(%q, %q) = %q, want %q", tc.in, tc.cur, got, tc.want)
		}
	}
	if got := DisplayString("10.005", "AED"); got != "10.005 AED" {
		t.Errorf("an invalid amount was rounded for display: %q", got)
	}
	if got := DisplayString("45.75", "KWD"); got != "45.750 KWD" {
		t.Errorf("DisplayString = %q", got)
	}
}
