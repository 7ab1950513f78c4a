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

// Parse reads s as an amount in currency: a plain decimal number (no
// exponent, no sign other than a leading minus, no thousands separators)
// with at most the currency's places. An empty currency checks the syntax
// only, with no bound on the places: commands use it to refuse a malformed
// --amount before they read the payment that tells its currency. The sign
// is not checked; see ParsePositive and ParseNonNegative.
func Parse(s, currency string) (decimal.Decimal, error) {
	raw := s
	s = strings.TrimSpace(s)
	if s == "" {
		return decimal.Zero, &Error{Value: raw, Reason: "is empty"}
	}
	if !plainDecimal(s) {
		return decimal.Zero, &Error{Value: raw, Reason: "is not a decimal number such as 10.50"}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero, &Error{Value: raw, Reason: "is not a decimal number such as 10.50"}
	}
	if p := decimalPlaces(s); currency != "" && p > Places(currency) {
		return decimal.Zero, &Error{Value: raw, Reason: fmt.Sprintf("%s allows at most %d decimal places, got %d",
			strings.ToUpper(currency), Places(currency), p)}
	}
	return d, nil
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

// plainDecimal accepts -?digits(.digits)? and rejects exponents, NaN,
// Infinity, "1.", ".5" and separators, which the service does not take.
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
