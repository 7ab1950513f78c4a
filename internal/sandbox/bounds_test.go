package sandbox

import (
	"strconv"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/sandbox/edge"
	"github.com/bnpl-cli/bnpl/internal/sandbox/service"
)

// A body over the limit says so, in the service's error form, on every
// family of endpoints, instead of failing to decode a cut body.
func TestBodyTooLarge(t *testing.T) {
	e := newDisputeEnv(t, Options{})
	id := e.authorized("100.00")
	big := `{"amount": "1.00", "pad": "` + strings.Repeat("x", edge.MaxBodyBytes) + `"}`
	for _, r := range []resp{
		e.do("ae", "POST", "/api/v2/checkout", aeTest, big),
		e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, big),
		e.do("ae", "POST", "/api/v2/payments/"+id+"/refunds", aeTest, big),
		e.do("ae", "PUT", "/api/v2/payments/"+id, aeTest, big),
		e.call("POST", "/api/v1/webhooks", aeLive, nil, big),
		e.call("POST", "/api/v1/dispute-webhooks", aeLive, mcAE, big),
		e.local("POST", "/_sandbox/clock/advance", big),
	} {
		wantError(t, r, 400, "bad_data", "request body too large: at most 1048576 bytes (1 MiB)")
	}
	if p := e.get(id); len(p.Captures) != 0 {
		t.Fatal("a refused body moved the payment")
	}
}

// Arrays and strings in a body are bounded, in the field-validation form.
func TestBodyBounds(t *testing.T) {
	e := newEnv(t, Options{})
	body := checkoutBody("ae-sandbox", "AED", "100.00")
	item := map[string]any{"reference_id": "SKU-1", "title": "Socks", "quantity": 1, "unit_price": "1.00", "category": "clothes"}
	items := make([]any, edge.MaxArrayLen+1)
	for i := range items {
		items[i] = item
	}
	r := e.do("ae", "POST", "/api/v2/checkout", aeTest, set(body, "payment.order.items", items))
	wantFieldError(t, r, "$.payment.order.items", "invalid_value", "has more than 250 elements (a bound of this sandbox)")

	body = checkoutBody("ae-sandbox", "AED", "100.00")
	r = e.do("ae", "POST", "/api/v2/checkout", aeTest, set(body, "payment.order.reference_id", strings.Repeat("r", edge.MaxReferenceIDLen+1)))
	wantFieldError(t, r, "$.payment.order.reference_id", "invalid_value", "is longer than 255 characters (a bound of this sandbox)")

	body = checkoutBody("ae-sandbox", "AED", "100.00")
	r = e.do("ae", "POST", "/api/v2/checkout", aeTest, set(body, "payment.description", strings.Repeat("é", edge.MaxStringLen+1)))
	wantFieldError(t, r, "$.payment.description", "invalid_value", "is longer than 4096 characters (a bound of this sandbox)")

	// At the bounds, everything passes.
	body = checkoutBody("ae-sandbox", "AED", "100.00")
	set(body, "payment.order.reference_id", strings.Repeat("r", edge.MaxReferenceIDLen))
	set(body, "payment.description", strings.Repeat("é", edge.MaxStringLen))
	if r := e.do("ae", "POST", "/api/v2/checkout", aeTest, body); r.status != 200 {
		t.Fatalf("at the bounds: %d %s", r.status, r.body)
	}

	// A capture's reference_id and items too; the payment is untouched.
	id := e.authorized("100.00")
	r = e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": "1.00", "reference_id": strings.Repeat("c", 256)})
	wantFieldError(t, r, "$.reference_id", "invalid_value", "is longer than 255 characters (a bound of this sandbox)")
	r = e.do("ae", "PUT", "/api/v2/payments/"+id, aeTest, map[string]any{"order": map[string]any{"reference_id": strings.Repeat("u", 256)}})
	wantFieldError(t, r, "$.order.reference_id", "invalid_value", "is longer than 255 characters (a bound of this sandbox)")
	if p := e.get(id); len(p.Captures) != 0 {
		t.Fatal("a refused capture was stored")
	}
}

// A payment keeps at most maxCapturesPerPayment captures and as many
// refunds.
func TestMovesPerPaymentBounded(t *testing.T) {
	e := newEnv(t, Options{})
	id := e.authorized("1000.00")
	capture := func(amount string) resp {
		return e.do("ae", "POST", "/api/v2/payments/"+id+"/captures", aeTest, map[string]any{"amount": amount})
	}
	for i := range edge.MaxCapturesPerPayment {
		if r := capture("1.00"); r.status != 200 {
			t.Fatalf("capture %d: %d %s", i+1, r.status, r.body)
		}
	}
	wantError(t, capture("1.00"), 400, "bad_data", "could not capture: this sandbox keeps at most 100 captures per payment")
	if p := e.get(id); len(p.Captures) != edge.MaxCapturesPerPayment || p.Status != "AUTHORIZED" {
		t.Fatalf("after the refusal: %d captures, %s", len(p.Captures), p.Status)
	}
	if r := e.do("ae", "POST", "/api/v2/payments/"+id+"/close", aeTest, nil); r.status != 200 {
		t.Fatalf("close: %d %s", r.status, r.body)
	}
	refund := func() resp {
		return e.do("ae", "POST", "/api/v2/payments/"+id+"/refunds", aeTest, map[string]any{"amount": "0.50"})
	}
	for i := range edge.MaxRefundsPerPayment {
		if r := refund(); r.status != 200 {
			t.Fatalf("refund %d: %d %s", i+1, r.status, r.body)
		}
	}
	wantError(t, refund(), 400, "bad_data", "could not refund: this sandbox keeps at most 100 refunds per payment")
}

// A merchant's stored evidence is bounded in count and bytes.
func TestAttachmentStorageBounded(t *testing.T) {
	oldCount, oldBytes := service.MaxAttachmentsPerMerchant, service.MaxAttachmentBytesPerMerchant
	defer func() { service.MaxAttachmentsPerMerchant, service.MaxAttachmentBytesPerMerchant = oldCount, oldBytes }()
	service.MaxAttachmentsPerMerchant = 3
	e := newDisputeEnv(t, Options{})
	for range 3 {
		e.attachment()
	}
	r := e.upload("attachment", "a.png", pngBytes)
	wantError(t, r, 400, "bad_data", "bad_request: this sandbox keeps at most 3 attachments...")

	service.MaxAttachmentsPerMerchant = 1000
	service.MaxAttachmentBytesPerMerchant = int64(3*len(pngBytes) + len(pdfBytes) - 1)
	r = e.upload("attachment", "b.pdf", pdfBytes)
	wantError(t, r, 400, "bad_data", "bad_request: this sandbox keeps at most 1000 attachments and "+strconv.Itoa(3*len(pngBytes)+len(pdfBytes)-1)+" bytes of them per merchant; reset the sandbox to free them")
	// A reset frees the room.
	if r := e.local("POST", "/_sandbox/reset", ""); r.status != 200 {
		t.Fatalf("reset: %d %s", r.status, r.body)
	}
	if r := e.upload("attachment", "b.pdf", pdfBytes); r.status != 200 {
		t.Fatalf("after reset: %d %s", r.status, r.body)
	}
}
