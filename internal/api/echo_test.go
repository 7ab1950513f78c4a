package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// echoing answers 400 quoting the Authorization header, a custom header
// and the request body, with a terminal escape: a careless proxy.
func echoing(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	auth := r.Header.Get("Authorization")
	w.Header().Set("X-Echo", auth)
	writeJSON(w, http.StatusBadRequest, map[string]any{
		"status": "error", "errorType": "bad_data",
		"error":  fmt.Sprintf("\x1b[31mrefused %s %s %s", auth, r.Header.Get("X-Token"), body),
		"errors": []map[string]string{{"field": auth, "code": "echo", "message": string(body)}},
	})
}

func TestEchoedSecretsAreMasked(t *testing.T) {
	srv := newCounted(t, echoing)
	var debug bytes.Buffer
	c, _ := newTestClient(t, srv.URL, func(o *Options) {
		o.Debug = &debug
		o.Retries = 0
		o.Secrets = []string{"other-secret-of-profile"}
	})
	const hookValue = "signing-value-0042"
	_, err := c.CreateWebhook(context.Background(), WebhookRequest{
		URL:    "https://shop.example.com/hooks",
		Header: &WebhookHeader{Title: "X-Hook", Value: hookValue},
	})
	apiErr, ok := AsAPIError(err)
	if !ok {
		t.Fatalf("want an APIError, got %v", err)
	}
	details, _ := json.Marshal(apiErr.ErrorDetails())
	resp, rawErr := c.Raw(context.Background(), RawRequest{
		Method: "POST", Path: "/api/v2/x", Header: http.Header{"X-Token": {"custom-token-77"}},
		Body: []byte(`{"note":"other-secret-of-profile"}`),
	})
	if resp == nil || rawErr == nil {
		t.Fatalf("Raw: %v %v", resp, rawErr)
	}
	for name, text := range map[string]string{
		"error":     err.Error(),
		"details":   string(details),
		"body":      string(apiErr.Body),
		"debug":     debug.String(),
		"raw error": rawErr.Error(),
		"raw body":  string(resp.Body),
	} {
		for _, s := range []string{testKey, hookValue, "custom-token-77", "other-secret-of-profile"} {
			if strings.Contains(text, s) {
				t.Errorf("%s shows %q:\n%s", name, s, text)
			}
		}
		if strings.Contains(text, "\x1b") {
			t.Errorf("%s carries a raw escape: %q", name, text)
		}
	}
	if !strings.Contains(err.Error(), `\x1b[31mrefused Bearer sk_test_****`) {
		t.Errorf("error: %s", err)
	}
}

func TestNetworkErrorQuotingAnswerIsMasked(t *testing.T) {
	e := &NetworkError{Op: "GET /x", Err: fmt.Errorf("malformed HTTP status code %q", testKey), masker: nil}
	c, _ := newTestClient(t, "http://127.0.0.1:1", nil)
	e.masker = c.masker
	if strings.Contains(e.Error(), testKey) {
		t.Errorf("network error shows the key: %s", e.Error())
	}
}
