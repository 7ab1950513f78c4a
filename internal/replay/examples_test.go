package replay

import (
	"bytes"
	"mime/multipart"
	"net/textproto"
	"os"
	"strings"
	"testing"
)

// A recording of the interface's examples (every request and answer body
// the service documents, its plugins and SDK send, each made here as a
// request of that shape) verifies clean against a fresh sandbox: the
// verifier finds no difference where there is none, whatever the endpoint,
// the error, the mode or the notification. Each step names the example it
// stands for; 26, the mobile SDK's own configuration, is no endpoint of
// the interface.
func TestExamplesRecordingVerifiesClean(t *testing.T) {
	rec := recordExamples(t)
	rep := verify(t, rec)
	if len(rep.Differences) != 0 || len(rep.Skipped) != 0 {
		t.Errorf("the examples' recording differs from the sandbox:%s\nskipped: %+v", describe(rep.Differences), rep.Skipped)
	}
	if rep.Compared != rep.Exchanges || rep.NotificationsCompared == 0 {
		t.Errorf("compared %d of %d exchanges and %d of %d notifications", rep.Compared, rep.Exchanges, rep.NotificationsCompared, rep.Notifications)
	}
	t.Logf("%d exchanges and %d notifications, %d customer actions", rep.Exchanges, rep.Notifications, len(rep.Actions))
}

// BenchmarkVerifyExamples replays the examples' recording (49 requests,
// 23 notifications, 10 customer actions) against a fresh sandbox in
// memory, as bnpl sandbox verify does.
func BenchmarkVerifyExamples(b *testing.B) {
	rec := recordExamples(b)
	for b.Loop() {
		if rep := verify(b, rec); len(rep.Differences) != 0 {
			b.Fatal(describe(rep.Differences))
		}
	}
}

// recordExamples records a request of the shape of each example.
func recordExamples(t testing.TB) *Recording {
	rec, _ := recordExamplesFile(t)
	return rec
}

// recordExamplesFile is recordExamples with the recording's file.
func recordExamplesFile(t testing.TB) (*Recording, []byte) {
	s := newStudio(t, nil)
	hook := s.receiver.URL + "/hooks"

	// 09, 10, 11, 12: payment webhooks (a plain http URL is refused, an
	// https one is taken, read, replaced and deleted), and one to the
	// receiver so that notifications reach the recording (13).
	s.call("POST", "/api/v1/webhooks", testKey, map[string]any{"url": "http://shop.example-store.com/hooks", "header": map[string]any{"title": "X-Sig", "value": "abcdefghijkl"}})
	_, wh := s.call("POST", "/api/v1/webhooks", testKey, map[string]any{"url": "https://store.example-store.com/tabby/webhook", "is_test": true})
	s.call("GET", "/api/v1/webhooks/"+str(wh, "id"), testKey, nil)
	s.call("PUT", "/api/v1/webhooks/"+str(wh, "id"), testKey, map[string]any{"url": "https://store.example-store.com/tabby/webhook2", "is_test": true,
		"header": map[string]any{"title": "X-Sig", "value": "signing-value-123456"}})
	s.call("GET", "/api/v1/webhooks", testKey, nil)
	s.call("DELETE", "/api/v1/webhooks/"+str(wh, "id"), testKey, nil)
	s.call("POST", "/api/v1/webhooks", testKey, map[string]any{"url": hook, "is_test": true})
	s.call("POST", "/api/v1/webhooks", liveKey, map[string]any{"url": hook, "is_test": false})

	// 01, 23, 24, 25: checkout in the Postman shape, and its errors: a body
	// that does not decode, a field that fails validation, another
	// country's currency.
	_, c1 := s.call("POST", "/api/v2/checkout", testKey, checkout("100", "AED", "otp.success@tabby.ai", "500000001", "ORD-1"))
	s.call("POST", "/api/v2/checkout", testKey, `{"payment":`)
	s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "A1", "otp.success@tabby.ai", "+971500000001", "ORD-X"))
	s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "SAR", "otp.success@tabby.ai", "+971500000001", "ORD-Y"))
	s.call("POST", "/api/v2/checkout", testKey, checkout("100.00", "AED", "otp.success@tabby.ai", "+971500000002", "ORD-PRE"))
	s.call("GET", "/api/v2/checkout/"+str(c1, "id"), testKey, nil)
	s.call("GET", "/api/v2/checkout/"+str(c1, "id")+"/hpp_link_qr", "", nil)
	p1 := str(c1, "payment", "id")

	// 25: a capture before the customer approved, an invalid id, a
	// refund of a payment with no captures.
	s.call("POST", "/api/v2/payments/"+p1+"/captures", testKey, map[string]any{"amount": "100.00", "reference_id": "idempotency_key_0"})
	s.call("GET", "/api/v2/payments/not-a-uuid", testKey, nil)
	s.customer("/_sandbox/payments/"+p1+"/approve", nil)
	s.call("POST", "/api/v2/payments/"+p1+"/refunds", testKey, map[string]any{"amount": "10.00", "reference_id": "r0"})

	// 04, 05, 06, 07, 08: captures (plain, and with items as Magento sends
	// them), refunds (plain and full), the order number's update.
	s.call("POST", "/api/v2/payments/"+p1+"/captures", testKey, map[string]any{"amount": "40.00", "reference_id": "idempotency_key_1"})
	s.call("POST", "/api/v2/payments/"+p1+"/captures", testKey, map[string]any{"amount": "60.00", "tax_amount": "0.00", "shipping_amount": "0.00",
		"created_at": nil, "items": []any{map[string]any{"title": "Product", "description": "Product", "quantity": 1, "unit_price": "60.00", "reference_id": "123|SKU-1"}}})
	s.call("POST", "/api/v2/payments/"+p1+"/refunds", testKey, map[string]any{"amount": "10", "reference_id": "idempotency_key_1"})
	s.call("POST", "/api/v2/payments/"+p1+"/refunds", testKey, map[string]any{"amount": "20.00", "reference_id": "refund idempotency key", "reason": "Reason for the refund",
		"items": []any{map[string]any{"title": "string", "description": "string", "quantity": 1, "unit_price": "20.00", "reference_id": "string"}}})
	s.call("PUT", "/api/v2/payments/"+p1, testKey, map[string]any{"order": map[string]any{"reference_id": "Your order number"}})
	s.call("GET", "/api/v2/payments/"+p1, testKey, nil)

	// 27: the payments list, by status and a page.
	s.call("GET", "/api/v2/payments?limit=20&offset=0", testKey, nil)
	s.call("GET", "/api/v2/payments?status=closed&limit=5", testKey, nil)

	recordDisputes(t, s, hook)
	s.settle()
	rec := s.recording()
	if rec.Notifications() == 0 {
		t.Fatal("no notification reached the recording")
	}
	data, err := os.ReadFile(s.path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{testKey, liveKey, "abcdefghijkl", "signing-value-123456", "dispute-secret-0042"} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("%q reached the recording", secret)
		}
	}
	return rec, data
}

// recordDisputes records the dispute examples (14 to 22), in live mode:
// a dispute webhook, disputes the customer opens, an upload, evidence,
// a challenge, an approval, the list and one dispute read, and one that
// support moves.
func recordDisputes(t testing.TB, s *studio, hook string) {
	t.Helper()
	code := []string{"X-Merchant-Code", "ae-sandbox"}
	s.call("POST", "/api/v1/dispute-webhooks", testKey, map[string]any{"url": hook}, code...)
	s.call("POST", "/api/v1/dispute-webhooks", liveKey, map[string]any{"url": hook, "header": map[string]any{"title": "X-Dispute", "value": "dispute-secret-0042"}}, code...)
	s.call("GET", "/api/v1/dispute-webhooks", liveKey, nil, code...)
	var payments []string
	for i, amount := range []string{"300.00", "200.00", "150.00", "120.00"} {
		_, c := s.call("POST", "/api/v2/checkout", liveKey, checkout(amount, "AED", "otp.success@tabby.ai", "+971500000001", "LIVE-"+itoa(i)))
		p := str(c, "payment", "id")
		s.customer("/_sandbox/payments/"+p+"/approve", nil)
		s.call("POST", "/api/v2/payments/"+p+"/captures", liveKey, map[string]any{"amount": amount, "reference_id": "live-cap-" + itoa(i)})
		payments = append(payments, p)
	}
	var disputes []string
	for i, p := range payments {
		// A second apart, so that the list's order is the order they
		// were opened in (ties are ordered by the sandbox's own counter).
		s.customer("/_sandbox/clock/advance?by=1s", nil)
		d := s.customer("/_sandbox/payments/"+p+"/dispute", map[string]any{"reason": []string{"unreceived_refund", "product_issue", "not_delivered", "identity_theft"}[i], "amount": "100.00", "comment": "additional comments"})
		disputes = append(disputes, str(d, "id"))
	}
	s.call("GET", "/api/v1/disputes", liveKey, nil)
	s.call("GET", "/api/v1/disputes/"+disputes[0], liveKey, nil)

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="attachment"; filename="photo.png"`)
	h.Set("Content-Type", "image/png")
	part, _ := mw.CreatePart(h)
	part.Write(append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0, 1, 2, 250}, 64)...))
	mw.Close()
	_, up := s.call("POST", "/api/v1/disputes/attachments/upload", liveKey, body.Bytes(), "Content-Type", mw.FormDataContentType())
	attachment := str(up, "id")

	s.call("POST", "/api/v1/disputes/"+disputes[0]+"/provide-evidence", liveKey, map[string]any{
		"content": "I am providing a photo of the damaged product that was received", "attachment_ids": []string{attachment}})
	s.call("POST", "/api/v1/disputes/"+disputes[0]+"/provide-evidence", liveKey, map[string]any{"content": "again"})
	s.call("POST", "/api/v1/disputes/challenge", liveKey, map[string]any{"dispute_id": disputes[1], "description": "Comment for support",
		"reason": "merchant_reason_order_amount_should_be_different", "amount": "50.00", "attachment_ids": []string{attachment}})
	s.call("POST", "/api/v1/disputes/approve", liveKey, map[string]any{"dispute_ids": []string{disputes[2]}})
	s.customer("/_sandbox/disputes/"+disputes[3]+"/resolve", map[string]any{"status": "evidence_merchant"})
	s.call("GET", "/api/v1/disputes?statuses=new&statuses=evidence_merchant", liveKey, nil)
	s.call("GET", "/api/v1/disputes", liveKey, nil)
	s.call("GET", "/api/v1/disputes/"+disputes[3], liveKey, nil)
	s.call("GET", "/api/v1/disputes/"+strings.Repeat("0", 8)+"-0000-4000-8000-000000000000", liveKey, nil)
	s.call("POST", "/api/v2/payments/"+payments[0]+"/refunds", liveKey, map[string]any{"amount": "5.00", "reference_id": "while-disputed"})
}
