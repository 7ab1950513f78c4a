package paysearch

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// MinPhoneDigits is the fewest digits a buyer query must hold to be matched
// against phone numbers.
const MinPhoneDigits = 4

// Buyer is a buyer query: a name or part of one, part of an email, or part
// of a phone number. Build it with NewBuyer.
type Buyer struct {
	// words are the query's words, folded; a buyer matches when each is
	// in the buyer's folded name or email.
	words []string
	// phone is the query's digits, national zeros dropped, when the query
	// is written as a phone number (digits, +, spaces, dashes, dots,
	// parentheses); "" otherwise.
	phone string
}

// NewBuyer reads a query; ok is false when it holds nothing to match.
func NewBuyer(q string) (b Buyer, ok bool) {
	b.words = strings.Fields(Fold(q))
	if isPhoneLike(q) {
		if d := strings.TrimLeft(Digits(q), "0"); len(d) >= MinPhoneDigits {
			b.phone = d
		}
	}
	return b, len(b.words) > 0
}

// ByPhone reports whether the query is written as a phone number.
func (b Buyer) ByPhone() bool { return b.phone != "" }

// Matches tells whether the buyer is one the query looks for: the query's
// digits in the phone's, or each of its words in the name or the email.
func (b Buyer) Matches(buyer *api.Buyer) bool {
	if buyer == nil {
		return false
	}
	if b.phone != "" && strings.Contains(Digits(buyer.Phone), b.phone) {
		return true
	}
	name, email := Fold(buyer.Name), Fold(buyer.Email)
	for _, w := range b.words {
		if !strings.Contains(name, w) && !strings.Contains(email, w) {
			return false
		}
	}
	return true
}

func isPhoneLike(q string) bool {
	for _, r := range q {
		if !unicode.IsDigit(r) && !strings.ContainsRune("+-.() ", r) {
			return false
		}
	}
	return true
}

// Digits keeps the digits of s, Arabic-Indic and Persian ones as ASCII.
func Digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if d, ok := digit(r); ok {
			b.WriteByte(d)
		}
	}
	return b.String()
}

func digit(r rune) (byte, bool) {
	switch {
	case r >= '0' && r <= '9':
		return byte(r), true
	case r >= '\u0660' && r <= '\u0669': // Arabic-Indic
		return byte('0' + r - '\u0660'), true
	case r >= '\u06F0' && r <= '\u06F9': // Extended Arabic-Indic (Persian, Urdu)
		return byte('0' + r - '\u06F0'), true
	}
	return 0, false
}

// Fold reduces s to what a person means when they type it to search: lower
// case, compatibility forms decomposed (NFKD) and combining marks dropped
// (é → e, ﬁ → fi); in Arabic the short vowels and other tashkeel go with the
// marks, tatweel is dropped, hamza carriers and alef forms (أ إ آ ٱ) read
// as bare alef, alef maqsura (ى) and Persian yeh (ی) as yeh, teh marbuta (ة)
// as heh, keheh (ک) as kaf, and Arabic-Indic digits as ASCII ones. So
// "Mohammed" finds "MOHAMMED", "Zoë" finds "Zoe", "فاطمة" finds "فاطمه" and
// "فَاطِمَة", "احمد" finds "أحمد".
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFKD.String(s) {
		if unicode.Is(unicode.Mn, r) || r == '\u0640' { // marks, tatweel
			continue
		}
		if d, ok := digit(r); ok {
			b.WriteByte(d)
			continue
		}
		switch r {
		case '\u0671': // alef wasla (the other alef forms decompose)
			r = '\u0627'
		case '\u0649', '\u06CC': // alef maqsura, Persian yeh
			r = '\u064A'
		case '\u0629': // teh marbuta
			r = '\u0647'
		case '\u06A9': // keheh
			r = '\u0643'
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
