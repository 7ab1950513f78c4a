package sandbox

import (
	"encoding/base64"
	"net/http"
	"testing"
)

// Every way a server might read a live key out of the request's
// Authorization headers is refused; test keys, and requests without keys,
// go through.
func TestLiveKeyGuardReadsEveryAuthorization(t *testing.T) {
	const live = "sk_live_4f9a8b7c6d5e"
	basic := base64.StdEncoding.EncodeToString([]byte(live + ":"))
	refused := []http.Header{
		{"Authorization": {"Bearer " + live}},
		{"Authorization": {"Bearer  " + live}},
		{"Authorization": {"Bearer\t" + live}},
		{"Authorization": {"bearer " + live}},
		{"Authorization": {live}},
		{"Authorization": {" " + live + " "}},
		{"Authorization": {"Bearer sk_test_ae_sandbox", "Bearer " + live}},
		{"Authorization": {"Bearer sk_test_ae_sandbox, Bearer " + live}},
		{"Authorization": {"Basic " + basic}},
		{"Authorization": {`Bearer "` + live + `"`}},
		{"Proxy-Authorization": {"Bearer " + live}},
		{"Authorization": {"Bearer SK_AE_SANDBOX"}},
		{"Authorization": {"Bearer sk_ae_sandbox"}},
	}
	guard := liveKeyGuard(false)
	for _, h := range refused {
		if status, _, ok := guard(&http.Request{Header: h}); !ok || status != http.StatusForbidden {
			t.Errorf("%q went through", h)
		}
	}
	passed := []http.Header{
		{},
		{"Authorization": {"Bearer sk_test_ae_sandbox"}},
		{"Authorization": {"Bearer  sk_test_0123456789"}},
		{"Authorization": {"Bearer sk_test_ae_sandbox", "Bearer sk_test_kw_sandbox"}},
		{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte("sk_test_ae_sandbox:"))}},
		{"X-Task": {"sk_live_not_a_credential"}},
	}
	for _, h := range passed {
		if _, _, ok := guard(&http.Request{Header: h}); ok {
			t.Errorf("%q was refused", h)
		}
	}
	if _, _, ok := liveKeyGuard(true)(&http.Request{Header: refused[0]}); ok {
		t.Error("--live refused a live key")
	}
}
