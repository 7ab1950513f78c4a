package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseAPIErrorForms(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		status    int
		body      string
		header    http.Header
		errorType string
		message   string
		fields    []FieldError
		plain     bool
		text      string // Error()
	}{
		{
			name:      "simple form",
			status:    400,
			body:      `{"status":"error","errorType":"bad_data","error":"could not decode request"}`,
			errorType: "bad_data",
			message:   "could not decode request",
			text:      "POST /api/v2/checkout: 400 bad_data: could not decode request",
		},
		{
			name:      "field validation form",
			status:    400,
			body:      `{"status":"error","errorType":"bad_data","errors":[{"field":"$.payment.currency","code":"invalid_value","message":""},{"field":"$.payment.amount","code":"invalid_value","message":"money supports only 2 decimal places, but got: 5"}]}`,
			errorType: "bad_data",
			fields: []FieldError{
				{Field: "$.payment.currency", Code: "invalid_value"},
				{Field: "$.payment.amount", Code: "invalid_value", Message: "money supports only 2 decimal places, but got: 5"},
			},
			text: "POST /api/v2/checkout: 400 bad_data: $.payment.currency: invalid_value; $.payment.amount: money supports only 2 decimal places, but got: 5 (invalid_value)",
		},
		{
			name:    "plain text 404",
			status:  404,
			body:    "404 page not found\n",
			message: "404 page not found",
			plain:   true,
			text:    "POST /api/v2/checkout: 404 not found",
		},
		{
			name:    "plain text 500",
			status:  500,
			body:    "Internal Server error",
			message: "Internal Server error",
			plain:   true,
			text:    "POST /api/v2/checkout: 500 internal server error: Internal Server error",
		},
		{
			name:      "403 with no error",
			status:    403,
			body:      `{"status":"error","errorType":"no_permission"}`,
			errorType: "no_permission",
			text:      "POST /api/v2/checkout: 403 no_permission",
		},
		{
			name:   "html from a proxy",
			status: 502,
			body:   "<html><body><h1>502 Bad Gateway</h1></body></html>",
			plain:  true,
			text:   "POST /api/v2/checkout: 502 bad gateway",
		},
		{
			name:   "empty body",
			status: 429,
			header: http.Header{"Retry-After": {"7"}},
			text:   "POST /api/v2/checkout: 429 too many requests",
		},
		{
			name:    "unknown JSON",
			status:  418,
			body:    `{"message":"short and stout"}`,
			message: "short and stout",
			text:    "POST /api/v2/checkout: 418 i'm a teapot: short and stout",
		},
		{
			name:    "error that is not a string",
			status:  400,
			body:    `{"errorType":"bad_data","error":{"code":7}}`,
			message: `{"code":7}`,
			text:    `POST /api/v2/checkout: 400 bad_data: {"code":7}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := parseAPIError(tt.status, tt.header, []byte(tt.body), "POST", "/api/v2/checkout", now)
			if e.Status != tt.status || e.Message != tt.message || e.plainText != tt.plain {
				t.Errorf("got status %d message %q plain %v", e.Status, e.Message, e.plainText)
			}
			if tt.errorType != "" && e.ErrorType != tt.errorType {
				t.Errorf("errorType = %q, want %q", e.ErrorType, tt.errorType)
			}
			if fmt.Sprint(e.Fields) != fmt.Sprint(tt.fields) {
				t.Errorf("fields = %+v, want %+v", e.Fields, tt.fields)
			}
			if got := e.Error(); got != tt.text {
				t.Errorf("Error() = %q\nwant      %q", got, tt.text)
			}
			if string(e.Body) != tt.body {
				t.Errorf("Body = %q", e.Body)
			}
		})
	}
}

func TestAPIErrorFromTheWire(t *testing.T) {
	srv := newCounted(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("case") {
		case "plain404":
			http.NotFound(w, r)
		case "plain500":
			w.WriteHeader(500)
			_, _ = w.Write([]byte("Internal Server error"))
		default:
			writeError(w, 404, "not_found", msgNoSuchPayment)
		}
	})
	c, _ := newTestClient(t, srv.URL, func(o *Options) { o.Retries = 0 })
	for _, tc := range []struct{ name, msg, hint string }{
		{"json", msgNoSuchPayment, "check the id and that the profile (merchant, region, test/live) is the one that created it"},
		{"plain404", msgPlainNotFound, "the service does not know this path or method"},
		{"plain500", "Internal Server error", "the service failed"},
	} {
		_, err := c.Raw(context.Background(), RawRequest{Method: "GET", Path: "/x?case=" + tc.name})
		e, ok := AsAPIError(err)
		if !ok {
			t.Fatalf("%s: err = %v, want *APIError", tc.name, err)
		}
		if e.Message != tc.msg || !strings.Contains(e.Hint(), tc.hint) {
			t.Errorf("%s: message %q hint %q", tc.name, e.Message, e.Hint())
		}
		if e.Method != "GET" || e.Path != "/x" {
			t.Errorf("%s: request = %s %s", tc.name, e.Method, e.Path)
		}
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{&APIError{Status: 400}, 3},
		{&APIError{Status: 401}, 4},
		{&APIError{Status: 403}, 5},
		{&APIError{Status: 404}, 6},
		{&APIError{Status: 409}, 7},
		{&APIError{Status: 429}, 8},
		{&APIError{Status: 500}, 9},
		{&APIError{Status: 502}, 9},
		{&APIError{Status: 503}, 9},
		{&APIError{Status: 405}, 1},
		{&APIError{Status: 418}, 1},
		{&APIError{Status: 302}, 1},
		{&NetworkError{Op: "GET /", Err: errors.New("EOF")}, 10},
		{&NetworkError{Op: "GET /", Err: &url.Error{Op: "Get", URL: "http://x", Err: context.Canceled}}, 130},
		{&NetworkError{Op: "GET /", Err: context.DeadlineExceeded}, 10},
		{&ValidationError{Problems: []Problem{{"$.amount", "must be positive"}}}, 2},
		{&OptionsError{Msg: "x"}, 2},
		{ErrDryRun, 0},
		{WithHint(&APIError{Status: 400}, "x"), 3},
		{WithHint(errors.New("plain"), "x"), 1},
		{fmt.Errorf("wrapped: %w", &APIError{Status: 409}), 7},
	}
	for _, tt := range tests {
		var coded interface{ ExitCode() int }
		if !errors.As(tt.err, &coded) {
			t.Errorf("%v: no ExitCode", tt.err)
			continue
		}
		if got := coded.ExitCode(); got != tt.want {
			t.Errorf("%v: ExitCode = %d, want %d", tt.err, got, tt.want)
		}
	}
}

func TestHints(t *testing.T) {
	tests := []struct {
		name string
		err  *APIError
		want string
	}{
		{"401", &APIError{Status: 401, Message: "invalid secret key"}, "bnpl profiles show"},
		{"401 login", &APIError{Status: 401}, "bnpl login"},
		{"region unknown", &APIError{Status: 403, Message: msgWrongRegion}, "this key belongs to another region; use --profile of that region"},
		{"region named", &APIError{Status: 403, Message: msgWrongRegion, region: "sa"}, `another region than "sa"`},
		{"disputes test", &APIError{Status: 403, ErrorType: "no_permission", Message: msgDisputesTestMode}, "disputes are live only: use --live with a live key"},
		{"no such payment", &APIError{Status: 404, Message: msgNoSuchPayment}, "check the id and that the profile (merchant, region, test/live) is the one that created it"},
		{"plain 404", &APIError{Status: 404, Message: msgPlainNotFound, plainText: true}, "the service does not know this path or method"},
		{"locked", &APIError{Status: 409, Message: msgLocked}, "another request is working on this payment; retry"},
		{"disputed", &APIError{Status: 409, Message: msgDisputed}, "resolve the dispute first"},
		{"capture too much", &APIError{Status: 400, Message: "could not capture: " + msgCaptureTooMuch + ": 10 > 5"}, "left to capture"},
		{"already closed", &APIError{Status: 400, Message: msgAlreadyClosed}, "the payment is closed"},
		{"429", &APIError{Status: 429, RetryAfter: 3 * time.Second}, "wait 3s"},
		{"429 list", &APIError{Status: 429, Method: "GET", Path: "/api/v2/payments", RetryAfter: time.Second}, "rate limited: wait 1s and retry, or lower --concurrency"},
		{"500 capture", &APIError{Status: 500, Method: "POST", Path: "/api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6/captures"}, "same --reference-id, then check with `bnpl payments get 3fa85f64-5717-4562-b3fc-2c963f66afa6`"},
		{"500 update", &APIError{Status: 500, Method: "PUT", Path: "/api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6"}, "read it back before sending it again"},
		{"500 damaged sandbox", &APIError{Status: 500, Method: "POST", Path: "/_sandbox/clock/advance", Message: `meta row "clock_offset" holds 1e+300: run bnpl sandbox reset`}, "retrying will not help"},
		{"capture too much names the id", &APIError{Status: 400, Message: msgCaptureTooMuch, Path: "/api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6/captures"}, "`bnpl payments get 3fa85f64-5717-4562-b3fc-2c963f66afa6`"},
	}
	for _, tt := range tests {
		if got := tt.err.Hint(); !strings.Contains(got, tt.want) {
			t.Errorf("%s: Hint() = %q, want it to contain %q", tt.name, got, tt.want)
		}
	}
	// A checkout has no flag that slows it down: none is offered.
	checkout := &APIError{Status: 429, Method: "POST", Path: "/api/v2/checkout", RetryAfter: time.Second}
	if got := checkout.Hint(); got != "rate limited: wait 1s and retry" {
		t.Errorf("checkout 429: Hint() = %q", got)
	}
}

func TestWithHintKeepsTheError(t *testing.T) {
	base := &APIError{Status: 400, Message: "could not capture: " + msgCaptureTooMuch}
	err := WithHint(base, "12.50 AED is left to capture")
	if e, ok := AsAPIError(err); !ok || e != base {
		t.Fatal("the APIError is no longer in the chain")
	}
	var h interface{ Hint() string }
	if !errors.As(err, &h) || h.Hint() != "12.50 AED is left to capture" {
		t.Errorf("hint = %q", h.Hint())
	}
	if err.Error() != base.Error() {
		t.Errorf("message changed: %q", err.Error())
	}
	if WithHint(nil, "x") != nil {
		t.Error("WithHint(nil) is not nil")
	}
}

func TestErrorHelpers(t *testing.T) {
	locked := fmt.Errorf("bulk row 3: %w", &APIError{Status: 409, Message: msgLocked})
	if !IsLocked(locked) || IsDisputed(locked) || IsAlreadyClosed(locked) {
		t.Error("locked misclassified")
	}
	if !IsAlreadyClosed(&APIError{Status: 400, Message: msgAlreadyClosed}) {
		t.Error("already closed not found")
	}
	if !IsNotFound(&APIError{Status: 404}) || !IsRateLimited(&APIError{Status: 429}) {
		t.Error("status helpers")
	}
	dial := &NetworkError{Op: "POST /x", Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}
	if IsOutcomeUnknown(dial) {
		t.Error("a dial failure has a known outcome: nothing was sent")
	}
	if !IsOutcomeUnknown(&NetworkError{Op: "POST /x", Err: errors.New("EOF")}) || !IsOutcomeUnknown(&APIError{Status: 500}) {
		t.Error("drops and 5xx have unknown outcomes")
	}
	if IsOutcomeUnknown(&APIError{Status: 400}) {
		t.Error("a 400 is a refusal")
	}
	if !strings.Contains(dial.Hint(), "nothing was sent") || !strings.Contains(dial.Error(), "could not connect") {
		t.Errorf("dial error: %q / %q", dial.Error(), dial.Hint())
	}
	drop := &NetworkError{Op: "POST /api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6/refunds", Err: errors.New("EOF")}
	if h := drop.Hint(); !strings.Contains(h, "may or may not have reached the service") || !strings.Contains(h, "re-run the refund with the same --reference-id") ||
		!strings.Contains(h, "payments get 3fa85f64-5717-4562-b3fc-2c963f66afa6") {
		t.Errorf("drop hint = %q", h)
	}
	update := &NetworkError{Op: "PUT /api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6", Err: errors.New("EOF")}
	if h := update.Hint(); strings.Contains(h, "capture") || !strings.Contains(h, "read it back") {
		t.Errorf("update drop hint = %q", h)
	}
}

func TestValidationErrorListsEveryProblem(t *testing.T) {
	v := &ValidationError{}
	if v.Err() != nil {
		t.Fatal("an empty ValidationError must be a nil error")
	}
	v.Add("$.payment.amount", "must be greater than zero, got %s", "-1")
	v.Add("$.payment.currency", "must be one of AED, KWD, SAR")
	want := "$.payment.amount: must be greater than zero, got -1\n$.payment.currency: must be one of AED, KWD, SAR"
	if v.Error() != want {
		t.Errorf("Error() = %q", v.Error())
	}
	if v.Err() == nil || v.ExitCode() != 2 {
		t.Error("Err/ExitCode")
	}
}

func TestAPIErrorJSON(t *testing.T) {
	e := parseAPIError(400, nil, []byte(`{"status":"error","errorType":"bad_data","errors":[{"field":"$.amount","code":"invalid_value","message":"x"}]}`), "POST", "/api/v2/payments/x/captures", time.Now())
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"status":400,"errorType":"bad_data","errors":[{"field":"$.amount","code":"invalid_value","message":"x"}],"method":"POST","path":"/api/v2/payments/x/captures"}`
	if string(b) != want {
		t.Errorf("JSON = %s", b)
	}
}

func TestErrorDetails(t *testing.T) {
	e := parseAPIError(429, http.Header{"Retry-After": {"4"}}, []byte(`{"status":"error","errorType":"rate_limited","error":"slow down"}`), "GET", "/api/v2/payments", time.Now())
	d := e.ErrorDetails()
	if d["status"] != 429 || d["error_type"] != "rate_limited" || d["message"] != "slow down" || d["method"] != "GET" || d["path"] != "/api/v2/payments" || d["retry_after_seconds"] != 4 {
		t.Errorf("details = %v", d)
	}
	if r, ok := d["response"].(json.RawMessage); !ok || string(r) != `{"status":"error","errorType":"rate_limited","error":"slow down"}` {
		t.Errorf("response = %v", d["response"])
	}
	n := (&NetworkError{Op: "POST /api/v2/payments/{id}/captures", Err: errors.New("EOF")}).ErrorDetails()
	if n["outcome"] != "unknown" || n["method"] != "POST" || n["path"] != "/api/v2/payments/{id}/captures" {
		t.Errorf("network details = %v", n)
	}
	// The interface the output package looks for, through a hint wrapper.
	var detailer interface{ ErrorDetails() map[string]any }
	if !errors.As(WithHint(e, "x"), &detailer) {
		t.Error("ErrorDetails not found through WithHint")
	}
}

// A refusal of the sandbox's own paths gets a hint about the sandbox, not
// about keys or profiles.
func TestSandboxPathHints(t *testing.T) {
	for _, tt := range []struct {
		status int
		path   string
		want   string
	}{
		{403, "/_sandbox/clock/advance", "from this machine only"},
		{404, "/_sandbox/deliveries/3fa85f64-5717-4562-b3fc-2c963f66afa6/resend", "bnpl sandbox deliveries"},
		{403, "/api/v2/payments", "the key may not do this"},
	} {
		e := &APIError{Status: tt.status, Path: tt.path}
		if h := e.Hint(); !strings.Contains(h, tt.want) {
			t.Errorf("%d %s: hint %q, want %q in it", tt.status, tt.path, h, tt.want)
		}
	}
}
