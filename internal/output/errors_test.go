package output

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// apiError stands in for the API client's error type.
type apiError struct{}

func (apiError) Error() string { return "Invalid amount: could not capture more than not captured yet" }
func (apiError) ExitCode() int { return 3 }
func (apiError) Hint() string  { return "check the capturable amount with: bnpl payments get ID" }
func (apiError) ErrorDetails() map[string]any {
	return map[string]any{
		"path":      "/api/v2/payments/p1/captures",
		"method":    "POST",
		"status":    400,
		"errorType": "bad_data",
		"errors":    []map[string]string{{"field": "amount", "message": "too large"}},
		"requestId": "req-<1>",
		"error":     "must not override",
	}
}

func TestPrintError(t *testing.T) {
	wrapped := fmt.Errorf("capture: %w", apiError{})
	tests := []struct {
		name   string
		err    error
		asJSON bool
		color  bool
		want   string
	}{
		{"plain", errors.New("boom"), false, false, "error: boom\n"},
		{"plain JSON", errors.New("boom"), true, false, "error: boom\n" + `{"error":"boom","exit_code":1}` + "\n"},
		{"hint and colour", &Error{Message: "unknown output format \"yaml\"", HintText: "use one of: table, json", Code: 2}, false, true,
			"\x1b[31merror:\x1b[0m unknown output format \"yaml\"\nhint: use one of: table, json\n"},
		{"API error as JSON", wrapped, true, false,
			"error: capture: Invalid amount: could not capture more than not captured yet\n" +
				"hint: check the capturable amount with: bnpl payments get ID\n" +
				`{"error":"capture: Invalid amount: could not capture more than not captured yet",` +
				`"hint":"check the capturable amount with: bnpl payments get ID","exit_code":3,` +
				`"status":400,"errorType":"bad_data","errors":[{"field":"amount","message":"too large"}],` +
				`"method":"POST","path":"/api/v2/payments/p1/captures","requestId":"req-<1>"}` + "\n"},
		{"nil", nil, true, false, ""},
	}
	for _, tt := range tests {
		ios, _, out, errOut := Test()
		ios.SetColorEnabled(tt.color)
		PrintError(ios, tt.err, tt.asJSON)
		if got := errOut.String(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
		if out.Len() != 0 {
			t.Errorf("%s: wrote to stdout: %q", tt.name, out)
		}
		if tt.asJSON && tt.err != nil {
			lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
			var obj map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &obj); err != nil {
				t.Errorf("%s: last line is not one JSON object: %v", tt.name, err)
			}
		}
	}
}

func TestErrorType(t *testing.T) {
	inner := errors.New("unexpected EOF")
	e := &Error{Message: "invalid --jq expression", Err: inner, HintText: "h", Code: 2}
	if e.Error() != "invalid --jq expression: unexpected EOF" || !errors.Is(e, inner) || e.ExitCode() != 2 || e.Hint() != "h" {
		t.Errorf("unexpected Error behaviour: %q %d %q", e.Error(), e.ExitCode(), e.Hint())
	}
	if (&Error{Message: "x"}).ExitCode() != 1 {
		t.Error("zero Code should mean exit 1")
	}
}
