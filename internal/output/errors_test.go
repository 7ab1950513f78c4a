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
				`"error_type":"bad_data","status":400,"errors":[{"field":"amount","message":"too large"}],` +
				`"method":"POST","path":"/api/v2/payments/p1/captures","request_id":"req-<1>"}` + "\n"},
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

// Under ScriptErrors stderr holds exactly one JSON object per error, with
// a newline, and nothing else: no words, no notices written to ErrOut.
func TestPrintErrorScriptContract(t *testing.T) {
	ios, _, out, errOut := Test()
	ios.ScriptErrors()
	if !ios.ScriptErrorsOn() {
		t.Fatal("ScriptErrors did not take")
	}
	_, _ = ios.ErrOut.Write([]byte("using the embedded sandbox as ae-sandbox (test mode)\n"))
	PrintWarning(ios, "config file is readable by others", "chmod 600 it")
	PrintError(ios, fmt.Errorf("capture: %w", apiError{}), true)
	PrintError(ios, errors.New("boom \x1b[2J sk_test_abcdefgh12345678"), true)
	if out.Len() != 0 {
		t.Errorf("wrote to stdout: %q", out)
	}
	dec := json.NewDecoder(strings.NewReader(errOut.String()))
	var objs []map[string]any
	for dec.More() {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("stderr is not JSON objects: %v\n%s", err, errOut)
		}
		objs = append(objs, obj)
	}
	if len(objs) != 3 || strings.Count(errOut.String(), "\n") != 3 || !strings.HasSuffix(errOut.String(), "}\n") {
		t.Fatalf("want three objects, one a line:\n%s", errOut)
	}
	if objs[0]["warning"] != "config file is readable by others" || objs[0]["hint"] != "chmod 600 it" {
		t.Errorf("warning object: %v", objs[0])
	}
	if objs[1]["error_type"] != "bad_data" || objs[1]["exit_code"] != float64(3) || objs[1]["request_id"] != "req-<1>" {
		t.Errorf("error object: %v", objs[1])
	}
	if _, ok := objs[1]["errorType"]; ok {
		t.Errorf("a camelCase key survived: %v", objs[1])
	}
	if msg := objs[2]["error"].(string); strings.Contains(msg, "\x1b") || strings.Contains(msg, "abcdefgh12345678") {
		t.Errorf("error not guarded: %q", msg)
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"errorType": "error_type", "exit_code": "exit_code", "requestId": "request_id", "status": "status", "content-type": "content_type"} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}
