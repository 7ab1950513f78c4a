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
		{" 7.5 ", "aed", "", false},
		// What the service's own plugins send: fewer places than the
		// currency's, and zero written with a fraction.
		{"115.5", "AED", "115.5", true},
		{"0.0", "AED", "0", true},
		{"100.0", "KWD", "100", true},
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
	f.Add("+1", "AED")
	f.Add(".5", "AED")
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
		if !plainDecimal(s) || !d.Equal(decimal.RequireFromString(s)) {
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

// TestGrammar: what the interface's amounts look like, and what is refused
// with a reason that says how to write it.
func TestGrammar(t *testing.T) {
	for _, s := range []string{"123", "123.4", "123.45", "0", "0.0", "115.5", "007", "-5"} {
		if reason := Syntax(s); reason != "" {
			t.Errorf("Syntax(%q) = %q, want accepted", s, reason)
		}
	}
	for s, want := range map[string]string{
		"":       "is empty",
		" 1":     "blanks",
		"1 ":     "blanks",
		"+1":     "plus sign",
		"1e3":    "exponent",
		"1E-2":   "exponent",
		".5":     "before the point",
		"-.5":    "before the point",
		"1.":     "after the point",
		"1,000":  "separator",
		"NaN":    "not a decimal",
		"Inf":    "not a decimal",
		"١٢":     "not a decimal",
		"0x10":   "not a decimal",
		"1.2.3":  "not a decimal",
		"--1":    "not a decimal",
		"1_000":  "not a decimal",
		"\t1":    "blanks",
		"1.5e":   "not a decimal",
		"١.٥":    "not a decimal",
		"12 345": "not a decimal",
	} {
		got := Syntax(s)
		if got == "" || !strings.Contains(got, want) {
			t.Errorf("Syntax(%q) = %q, want a reason with %q", s, got, want)
		}
		if _, err := Parse(s, "AED"); err == nil {
			t.Errorf("Parse(%q) accepted", s)
		}
	}
}

// FuzzFormatParse: every amount the formatter writes parses back, in its
// currency, to the same value, and formats again to the same text.
func FuzzFormatParse(f *testing.F) {
	f.Add(int64(0), int32(0), "AED")
	f.Add(int64(11550), int32(-2), "AED")
	f.Add(int64(-1), int32(-3), "KWD")
	f.Add(int64(123456789), int32(-5), "SAR")
	f.Add(int64(7), int32(4), "kwd")
	f.Add(int64(1), int32(0), "XYZ")
	f.Fuzz(func(t *testing.T, unscaled int64, exp int32, cur string) {
		if exp < -30 || exp > 30 {
			t.Skip()
		}
		d := decimal.New(unscaled, exp)
		s := Format(d, cur)
		got, err := Parse(s, cur)
		if err != nil {
			t.Fatalf("Format(%s, %q) = %q, which Parse refuses: %v", d, cur, s, err)
		}
		if !got.Equal(d.Round(Places(cur))) {
			t.Fatalf("%q parsed to %s, want %s", s, got, d.Round(Places(cur)))
		}
		if again := Format(got, cur); again != s {
			t.Fatalf("Format(Parse(%q)) = %q", s, again)
		}
	})
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
