package api

import "github.com/bnpl-cli/bnpl/internal/wire"

// The rules themselves are the wire package's (wire.CheckCheckout,
// wire.CheckMoveItems), shared with the sandbox; here they become the
// client's local validation error (exit 2, nothing sent).

// ValidateCheckout checks a POST /api/v2/checkout body against what the
// interface requires, and returns every problem found, each with its JSON
// path, or nil when the body may be sent. knownCurrencies narrows the
// currencies the merchant may use (its country's); nil allows any the
// service settles in.
func ValidateCheckout(body []byte, knownCurrencies []string) *ValidationError {
	findings, decoded := wire.CheckCheckoutIn(body, knownCurrencies)
	v := &ValidationError{}
	if !decoded {
		v.Add("$", "must be a single JSON object")
		return v
	}
	return problemsOf(v, findings)
}

// ValidateNames finds the member names that appear twice in one object
// of body: for a body decoded into a map before it is checked and sent,
// where one of the two would be dropped without a word.
func ValidateNames(body []byte) *ValidationError {
	return problemsOf(&ValidationError{}, wire.CheckRepeatedNames(body))
}

// ValidateOrderItems checks a JSON array of order items, as a capture or a
// refund sends them, with the places of currency ("" when not known yet).
func ValidateOrderItems(body []byte, currency string) *ValidationError {
	v := &ValidationError{}
	findings, decoded := wire.CheckMoveItems(body, currency)
	if !decoded {
		v.Add("$.items", "must be a single JSON array")
		return v
	}
	return problemsOf(v, findings)
}

func problemsOf(v *ValidationError, findings []wire.Finding) *ValidationError {
	for _, f := range findings {
		v.Problems = append(v.Problems, Problem{Path: f.Path, Message: f.Message})
	}
	return v.result()
}

func (v *ValidationError) result() *ValidationError {
	if len(v.Problems) == 0 {
		return nil
	}
	return v
}
