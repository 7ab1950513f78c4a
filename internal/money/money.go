// Package money holds the service's rules for amounts: decimal strings whose
// number of places depends on the currency, never floats.
package money

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// Currencies the service settles in, with the places each allows.
var places = map[string]int32{
	"AED": 2,
	"SAR": 2,
	"KWD": 3,
}

// Known reports whether the service settles in currency.
func Known(currency string) bool {
	_, ok := places[strings.ToUpper(currency)]
	return ok
}

// Places is the number of decimal places currency allows; 2 for an unknown
// currency, the service's default.
func Places(currency string) int32 {
	if p, ok := places[strings.ToUpper(currency)]; ok {
		return p
	}
	return 2
}

// Currencies lists the settled currencies in a stable order, for messages.
func Currencies() []string { return []string{"AED", "KWD", "SAR"} }

// Error says why an amount was refused; Reason is written to be shown to a
// person as is.
type Error struct {
	Value  string
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid amount %q: %s", e.Value, e.Reason)
}

// Parse reads s as an amount in currency. The grammar is the one every
// amount of the service follows, in checkout, captures, refunds, items and
// bulk rows: digits, then optionally a point and more digits ("123",
// "123.4", "123.45"), at most the currency's places, nothing around it. A
// leading minus is read so that a negative amount is refused by the sign
// rules with a message about the sign (see ParsePositive and
// ParseNonNegative); exponents ("1e3"), a plus sign, blanks, ".5", "1.",
// thousands separators and digits of other scripts are not amounts. Fewer
// places than the currency's ("115.5" in AED) are fine.
//
// An empty currency checks the syntax only, with no bound on the places:
// commands use it to refuse a malformed --amount before they read the
// payment that tells its currency.
func Parse(s, currency string) (decimal.Decimal, error) {
	if reason := Syntax(s); reason != "" {
		return decimal.Zero, &Error{Value: s, Reason: reason}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		// Syntax admits only what the decimal reader reads exactly.
		return decimal.Zero, &Error{Value: s, Reason: "is not a decimal number such as 10.50"}
	}
	if p := decimalPlaces(s); currency != "" && p > Places(currency) {
		return decimal.Zero, &Error{Value: s, Reason: PlacesReason(currency, p)}
	}
	return d, nil
}

// PlacesReason says that an amount has p places where currency allows
// fewer.
func PlacesReason(currency string, p int32) string {
	return fmt.Sprintf("%s allows at most %d decimal places, got %d", strings.ToUpper(currency), Places(currency), p)
}

// Syntax says what keeps s from being written as an amount, or "" when it
// is one: -?digits(.digits)?. Each reason names the fix.
func Syntax(s string) string {
	switch {
	case s == "":
		return "is empty"
	case strings.TrimSpace(s) != s:
		return "has blanks around the number: write the digits only"
	case plainDecimal(s):
		return ""
	case strings.HasPrefix(s, "+"):
		return "has a plus sign: write the digits only, such as 10.50"
	case strings.ContainsAny(s, "eE") && exponentForm(s):
		return "uses exponent notation: write a plain decimal such as 100.00"
	case strings.HasPrefix(strings.TrimPrefix(s, "-"), "."):
		return "needs a digit before the point, such as 0.5"
	case strings.HasSuffix(s, "."):
		return "needs digits after the point, such as 10.50, or no point"
	case strings.Contains(s, ","):
		return "has a separator: write the digits with no thousands separator, such as 1250.00"
	}
	return "is not a decimal number such as 10.50"
}

// exponentForm reports whether s reads as a number with an exponent, so
// the message can say so rather than something vaguer.
func exponentForm(s string) bool {
	_, err := decimal.NewFromString(s)
	return err == nil
}

// ParsePositive is Parse that also requires the amount to be above zero.
func ParsePositive(s, currency string) (decimal.Decimal, error) {
	d, err := Parse(s, currency)
	if err != nil {
		return d, err
	}
	if !d.IsPositive() {
		return decimal.Zero, &Error{Value: s, Reason: "must be greater than zero"}
	}
	return d, nil
}

// ParseNonNegative is Parse that also refuses amounts below zero.
func ParseNonNegative(s, currency string) (decimal.Decimal, error) {
	d, err := Parse(s, currency)
	if err != nil {
		return d, err
	}
	if d.IsNegative() {
		return decimal.Zero, &Error{Value: s, Reason: "must be zero or more"}
	}
	return d, nil
}

// Format writes d with exactly the currency's places, as the service and
// people expect to read it ("100.00", "12.500").
func Format(d decimal.Decimal, currency string) string {
	return d.StringFixed(Places(currency))
}

// Display writes an amount for a person, the one way every table, detail
// view, prompt and summary shows money: exactly the currency's places, a
// space and the code ("1250.00 AED", "12.500 KWD"). There are no thousands
// separators, so an amount read off the screen can be pasted into --amount.
// With no currency the code is left out.
func Display(d decimal.Decimal, currency string) string {
	s := Format(d, currency)
	if !d.Equal(d.Round(Places(currency))) {
		// More places than the currency has: an invalid amount is shown
		// as it is, never rounded into a valid-looking one.
		s = d.String()
	}
	if currency == "" {
		return s
	}
	return s + " " + strings.ToUpper(currency)
}

// DisplayString is Display for an amount as the service sent it. A value
// that is not a decimal number is shown as sent (with the code), so a
// surprise from the service is seen rather than hidden.
func DisplayString(amount, currency string) string {
	amount = strings.TrimSpace(amount)
	if amount == "" {
		return ""
	}
	d, err := decimal.NewFromString(amount)
	if err != nil {
		if currency == "" {
			return amount
		}
		return amount + " " + strings.ToUpper(currency)
	}
	return Display(d, currency)
}

// FormatString is Format for an amount as the service sent it, for the
// machine formats (TSV, CSV): "45.75" of KWD is "45.750", "1250" of AED is
// "1250.00". A value that is not a plain decimal, or that has more places
// than the currency, is returned as sent; without a known currency too.
func FormatString(amount, currency string) string {
	t := strings.TrimSpace(amount)
	if !Known(currency) || !plainDecimal(t) {
		return amount
	}
	d, err := decimal.NewFromString(t)
	if err != nil || !d.Equal(d.Round(Places(currency))) {
		return amount
	}
	return Format(d, currency)
}

// Places of s as written, so "10.50" counts 2 even though it equals 10.5.
func decimalPlaces(s string) int32 {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return int32(len(s) - i - 1)
	}
	return 0
}

// plainDecimal accepts -?digits(.digits)? (ASCII digits) and rejects
// exponents, NaN, Infinity, "1.", ".5", signs other than a leading minus
// and separators, which the service does not take.
func plainDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" || (hasDot && frac == "") {
		return false
	}
	for _, part := range []string{intPart, frac} {
		for _, r := range part {
			if r < '0' || r > '9' {
				return false
			}
		}
	}
	return true
}
