package webhook

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/httpserve"
)

// Kinds of notification, told apart by the shape of the body: the service
// sends no event-type field.
const (
	KindPayment = "payment"
	KindDispute = "dispute"
	KindUnknown = "unknown"
)

// MaxBodyBytes bounds a notification body; real ones are a few kilobytes.
const MaxBodyBytes = 1 << 20

// DefaultLimits bound a Receiver's server: the httpserve defaults (a
// request's header within 5s, a request, body included, within 30s; an
// idle connection is closed after 30s; one client holds at most a quarter
// of the connections), at most 128 connections, so 32 of one client, and
// 16 bodies read at once, so that at most 16 MiB of bodies are held
// whatever senders do.
var DefaultLimits = httpserve.Limits{MaxConns: 128, MaxBodies: 16}

// Notification is one accepted delivery, as `bnpl listen` reports it.
type Notification struct {
	ReceivedAt time.Time `json:"received_at"`
	Kind       string    `json:"kind"`
	Path       string    `json:"path"`
	// ID is the payment id of a payment notification.
	ID string `json:"id,omitempty"`
	// DisputeID is set for dispute notifications, PaymentID for both when
	// known.
	DisputeID string `json:"dispute_id,omitempty"`
	PaymentID string `json:"payment_id,omitempty"`
	Status    string `json:"status,omitempty"`
	// Event is the change notified: authorized, captured, refunded,
	// closed, updated, rejected, expired, auth_expired, or a dispute's new
	// status. A bnpl sandbox names it in EventHeader;
	// otherwise it is told from the body.
	Event    string `json:"event,omitempty"`
	Amount   string `json:"amount,omitempty"`
	Currency string `json:"currency,omitempty"`
	// Verified is true when a static header was configured and matched; it
	// is false when no header was configured (nothing was checked).
	Verified bool           `json:"verified"`
	Forward  *ForwardResult `json:"forward,omitempty"`
	// Delivery is the sandbox's delivery id (DeliveryHeader); Repeat
	// marks a delivery id this receiver got before: a duplicate, or the
	// retry of one it answered with an error.
	Delivery string `json:"delivery,omitempty"`
	Repeat   bool   `json:"repeat,omitempty"`
	// Payload is the body exactly as received.
	Payload json.RawMessage `json:"payload"`
	// Header holds the request's headers, the configured secret masked.
	// It is not part of the JSON line, which carries the payload only.
	Header http.Header `json:"-"`
}

// ForwardResult is what the merchant's own endpoint answered.
type ForwardResult struct {
	URL    string `json:"url"`
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Rejection is a delivery that was refused. It never carries the expected
// header value nor the one received.
type Rejection struct {
	ReceivedAt time.Time
	Path       string
	Remote     string
	Status     int
	Reason     string
	// OnPurpose marks a good delivery failed because of FailFirst, so that
	// it reads as a rehearsal and not as a problem with the sender. Kind
	// and ID then say which notification the sender should send again.
	OnPurpose bool
	Kind      string
	ID        string
}

// Classify reads the kind and the identifying fields of a notification
// body. Payment notifications carry the payment ("id", "status",
// "amount", ...); dispute notifications carry "dispute_id".
func Classify(body []byte) Notification {
	n := Notification{Kind: KindUnknown, Payload: json.RawMessage(bytes.TrimSpace(body))}
	var fields map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&fields) != nil || fields == nil {
		return n
	}
	str := func(k string) string {
		switch v := fields[k].(type) {
		case string:
			return v
		case json.Number:
			return v.String()
		}
		return ""
	}
	n.Status, n.Amount, n.Currency = str("status"), str("amount"), str("currency")
	switch {
	case str("dispute_id") != "":
		n.Kind, n.DisputeID, n.PaymentID = KindDispute, str("dispute_id"), str("payment_id")
		n.Event = n.Status
	case str("id") != "" && (n.Status != "" || n.Amount != ""):
		n.Kind, n.ID, n.PaymentID = KindPayment, str("id"), str("id")
		n.Event = paymentEvent(fields, n.Status)
	}
	return n
}

// EventHeader is the header in which a bnpl sandbox names the event of a
// delivery; the service sends none.
const EventHeader = "Bnpl-Sandbox-Event"

// DeliveryHeader is the header in which a bnpl sandbox names the delivery:
// every attempt of one notification carries the same id.
const DeliveryHeader = "Bnpl-Sandbox-Delivery"

// maxSeen bounds the delivery ids a Receiver remembers to mark repeats.
const maxSeen = 10000

// paymentEvent tells a payment notification's event from its body, as
// well as a body can: the service names none. A refund shows as refunded,
// a capture of a payment still authorized as captured, an authorization
// that lapsed as auth_expired (the name a bnpl sandbox sends: the payment
// stays AUTHORIZED, unlike an EXPIRED one); otherwise the status is the
// event.
func paymentEvent(fields map[string]any, status string) string {
	count := func(k string) int {
		list, _ := fields[k].([]any)
		return len(list)
	}
	expired, _ := fields["is_expired"].(bool)
	authorized, closed := strings.EqualFold(status, "authorized"), strings.EqualFold(status, "closed")
	switch {
	case authorized && expired:
		return "auth_expired"
	case count("refunds") > 0 && (authorized || closed):
		return "refunded"
	case count("captures") > 0 && authorized:
		return "captured"
	}
	return status
}

// WriteJSONLine writes n as one line of JSON, the format of `bnpl listen`
// when its output is not a terminal.
func WriteJSONLine(w io.Writer, n Notification) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if len(n.Payload) == 0 || !json.Valid(n.Payload) {
		n.Payload = json.RawMessage("null")
	}
	if err := enc.Encode(n); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// Receiver is an http.Handler that accepts webhook notifications: it
// checks the static header when one is configured, reports each accepted
// notification, and can forward it to another endpoint. The zero value
// accepts everything and reports nothing.
type Receiver struct {
	// HeaderTitle and HeaderValue are the static header every delivery
	// must carry; an empty title checks nothing.
	HeaderTitle string
	HeaderValue string
	// ForwardTo, when set, receives every accepted notification: the same
	// body and headers, POSTed to this URL, as Forward allows (see
	// forward.go: the address it reaches decides what a forward carries).
	ForwardTo string
	Forward   ForwardRules
	// Max, when positive, is how many notifications are accepted; Done is
	// closed after the last, and later deliveries answer 503.
	Max int
	// FailFirst answers the first so many deliveries that pass the header
	// and body checks with 500, as a receiver that is down would, so that
	// the sender's retries can be watched. They are reported to OnReject
	// with OnPurpose set, and are neither forwarded nor counted toward Max.
	FailFirst int
	// Limits bound the server Serve runs (timeouts, connections, bodies
	// read at once); zero fields take DefaultLimits' values.
	Limits httpserve.Limits
	// Now stamps notifications; nil means time.Now.
	Now func() time.Time
	// OnNotification and OnReject are called one at a time, in the order
	// the deliveries finish.
	OnNotification func(Notification)
	OnReject       func(Rejection)
	// Skip, when set, tells the notifications not wanted (bnpl listen
	// --events): they are answered 200, so that the sender does not retry
	// them, and are neither reported, forwarded, failed on purpose nor
	// counted toward Max.
	Skip func(Notification) bool

	once     sync.Once
	mu       sync.Mutex // guards accepted, repeats, failed and skipped
	report   sync.Mutex // keeps callbacks one at a time, so output lines never interleave
	accepted int
	repeats  int // of accepted, those whose delivery id came before
	failed   int
	skipped  int
	forwards forwardClients
	seen     idSet // delivery ids accepted, to mark repeats
	taken    idSet // delivery ids answered 200, to count repeats apart
	done     chan struct{}
	gate     *httpserve.Gate // bodies read at once, set by init
}

func (r *Receiver) init() {
	r.once.Do(func() {
		r.done = make(chan struct{})
		r.gate = httpserve.NewGate(r.limits().MaxBodies)
	})
}

// limits are r.Limits with DefaultLimits' caps where they are zero.
func (r *Receiver) limits() httpserve.Limits {
	lim := r.Limits
	if lim.MaxConns == 0 {
		lim.MaxConns = DefaultLimits.MaxConns
	}
	if lim.MaxBodies == 0 {
		lim.MaxBodies = DefaultLimits.MaxBodies
	}
	return lim
}

// Skipped is how many notifications Skip has passed over so far.
func (r *Receiver) Skipped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped
}

// Done is closed once Max notifications have been accepted.
func (r *Receiver) Done() <-chan struct{} {
	r.init()
	return r.done
}

// Count is how many notifications were accepted so far.
func (r *Receiver) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.accepted
}

// Repeats is how many of the accepted notifications were a delivery
// already accepted (a duplicate, or the sender's retry of one it took for
// lost); a retry of one answered with an error is not a repeat.
func (r *Receiver) Repeats() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.repeats
}

// FailedOnPurpose is how many deliveries FailFirst has answered 500 so far.
func (r *Receiver) FailedOnPurpose() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *Receiver) now() time.Time {
	if r.Now != nil {
		return r.Now().UTC()
	}
	return time.Now().UTC()
}

// ServeHTTP answers one delivery: 200 for an accepted notification, 401
// when the static header is missing or wrong, 400 for a body that is not
// JSON, 413 for one too large, 500 for the first FailFirst good ones, 503
// once Max was reached. GET and HEAD
// answer 200 with a line of text, so that probes can tell it is up.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.init()
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "bnpl listen: POST webhook notifications to this address\n")
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		r.reject(w, req, http.StatusMethodNotAllowed, "method "+req.Method+" is not POST")
		return
	}
	if !r.checkHeader(w, req) {
		return
	}
	body, ok := r.readBody(w, req)
	if !ok {
		return
	}
	n := Classify(body)
	if ev := strings.TrimSpace(req.Header.Get(EventHeader)); ev != "" {
		n.Event = ev
	}
	if r.Skip != nil && r.Skip(n) {
		// Answered as received, so that the sender does not retry it.
		r.mu.Lock()
		r.skipped++
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`+"\n")
		return
	}
	last, ok := r.admit(w, req, &n)
	if !ok {
		return
	}
	n.ReceivedAt = r.now()
	n.Path = req.URL.RequestURI()
	n.Verified = r.HeaderTitle != ""
	n.Header = r.maskedHeader(req.Header)
	r.answer(w, req, n, body, last)
}

// checkHeader refuses, before a byte of the body is read, a delivery
// without the static header or with the wrong value: a sender without it
// is answered 401 at once and holds nothing. The connection is closed
// after the answer, so that the server does not wait for the unread body
// either.
func (r *Receiver) checkHeader(w http.ResponseWriter, req *http.Request) bool {
	if r.HeaderTitle == "" {
		return true
	}
	got := req.Header.Values(r.HeaderTitle)
	switch {
	case len(got) == 0:
		w.Header().Set("Connection", "close")
		r.reject(w, req, http.StatusUnauthorized, "header "+r.HeaderTitle+" is missing")
		return false
	case subtle.ConstantTimeCompare([]byte(got[0]), []byte(r.HeaderValue)) != 1:
		w.Header().Set("Connection", "close")
		r.reject(w, req, http.StatusUnauthorized, "header "+r.HeaderTitle+" has the wrong value")
		return false
	}
	return true
}

// readBody reads the body within MaxBodyBytes and the gate of bodies read
// at once; it must be JSON.
func (r *Receiver) readBody(w http.ResponseWriter, req *http.Request) ([]byte, bool) {
	if req.ContentLength > MaxBodyBytes {
		w.Header().Set("Connection", "close")
		r.reject(w, req, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", MaxBodyBytes))
		return nil, false
	}
	if httpserve.HasBody(req) {
		if !r.gate.Enter(req) {
			return nil, false
		}
		defer r.gate.Leave()
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, MaxBodyBytes+1))
	switch {
	case err != nil:
		r.reject(w, req, http.StatusBadRequest, "could not read the body: "+err.Error())
	case len(body) > MaxBodyBytes:
		r.reject(w, req, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", MaxBodyBytes))
	case !json.Valid(body):
		r.reject(w, req, http.StatusBadRequest, "the body is not JSON")
	default:
		return body, true
	}
	return nil, false
}

// admit counts a good delivery: failed on purpose while FailFirst lasts
// (answered 500), refused once Max were accepted (503), else accepted,
// marked as a repeat when its delivery id came before. last is set when
// it is the Max-th.
func (r *Receiver) admit(w http.ResponseWriter, req *http.Request, n *Notification) (last, ok bool) {
	r.mu.Lock()
	if r.failed < r.FailFirst {
		r.failed++
		nth := r.failed
		r.mu.Unlock()
		// The sender must see nothing but a plain server error, as from a
		// receiver that crashed.
		id := n.ID
		if n.Kind == KindDispute {
			id = n.DisputeID
		}
		r.respond(w, req, Rejection{
			Status:    http.StatusInternalServerError,
			Reason:    fmt.Sprintf("failed on purpose, %d of %d", nth, r.FailFirst),
			OnPurpose: true, Kind: n.Kind, ID: id,
		})
		return false, false
	}
	if r.Max > 0 && r.accepted >= r.Max {
		r.mu.Unlock()
		r.reject(w, req, http.StatusServiceUnavailable, fmt.Sprintf("already received %d notifications (--max)", r.Max))
		return false, false
	}
	r.accepted++
	last = r.Max > 0 && r.accepted == r.Max
	n.Delivery = strings.TrimSpace(req.Header.Get(DeliveryHeader))
	n.Repeat = r.sawLocked(n.Delivery)
	r.mu.Unlock()
	return last, true
}

// answer forwards an accepted notification when asked, reports it, and
// answers the sender: with a forward, what the forward's endpoint
// answered, so that a failing endpoint makes the sender retry; such a
// notification does not count toward Max, its retry will.
func (r *Receiver) answer(w http.ResponseWriter, req *http.Request, n Notification, body []byte, last bool) {
	status := http.StatusOK
	if r.ForwardTo != "" {
		n.Forward = r.forward(req, body)
		switch {
		case n.Forward.Error != "":
			status = http.StatusBadGateway
		case n.Forward.Status < 200 || n.Forward.Status > 299:
			status = n.Forward.Status
		}
	}
	r.mu.Lock()
	if status != http.StatusOK {
		r.accepted--
		last = false
	} else if r.taken.add(n.Delivery) {
		r.repeats++ // a delivery already taken, received again
	}
	r.mu.Unlock()
	if r.OnNotification != nil {
		r.report.Lock()
		r.OnNotification(n)
		r.report.Unlock()
	}
	w.Header().Set("Content-Type", "application/json")
	if status != http.StatusOK {
		w.WriteHeader(status)
		b, _ := json.Marshal(map[string]string{"status": "error", "error": "the forward failed: " + n.Forward.describe()})
		w.Write(append(b, '\n'))
		return
	}
	io.WriteString(w, `{"status":"ok"}`+"\n")
	if last {
		close(r.done)
	}
}

// sawLocked records the delivery id and reports whether it came before;
// r.mu is held.
func (r *Receiver) sawLocked(id string) bool { return r.seen.add(id) }

// idSet is a set of delivery ids that forgets the oldest past maxSeen.
type idSet struct {
	has   map[string]bool
	order []string
}

// add records id and reports whether it was there already ("" never is).
func (s *idSet) add(id string) bool {
	if id == "" {
		return false
	}
	if s.has[id] {
		return true
	}
	if s.has == nil {
		s.has = map[string]bool{}
	}
	s.has[id] = true
	s.order = append(s.order, id)
	if len(s.order) > maxSeen {
		delete(s.has, s.order[0])
		s.order = s.order[1:]
	}
	return false
}

func (f *ForwardResult) describe() string {
	if f.Error != "" {
		return f.Error
	}
	return fmt.Sprintf("%s answered %d", f.URL, f.Status)
}

func (r *Receiver) reject(w http.ResponseWriter, req *http.Request, status int, reason string) {
	r.respond(w, req, Rejection{Status: status, Reason: reason})
}

// respond reports j, stamped with the request, and answers with its status.
func (r *Receiver) respond(w http.ResponseWriter, req *http.Request, j Rejection) {
	j.ReceivedAt, j.Path, j.Remote = r.now(), req.URL.RequestURI(), req.RemoteAddr
	if r.OnReject != nil {
		r.report.Lock()
		r.OnReject(j)
		r.report.Unlock()
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(j.Status)
	b, _ := json.Marshal(map[string]string{"status": "error", "error": j.Reason})
	w.Write(append(b, '\n'))
}

func (r *Receiver) maskedHeader(h http.Header) http.Header {
	out := h.Clone()
	if r.HeaderTitle != "" && len(out.Values(r.HeaderTitle)) > 0 {
		out.Set(r.HeaderTitle, "****")
	}
	return out
}

// Serve accepts deliveries on ln until ctx ends or Max notifications have
// been accepted, then shuts down gracefully: deliveries in progress are
// answered before it returns.
func (r *Receiver) Serve(ctx context.Context, ln net.Listener) error {
	r.init()
	lim := r.limits()
	// Bodies are gated inside ServeHTTP (r.gate), after the header check,
	// so that a sender without the header is refused without waiting.
	lim.MaxBodies = 0
	srv := lim.Server(r)
	ln = lim.Listener(ln)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	case <-r.done:
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		// What is left are connections a sender opened and sent nothing on
		// (a delivery pool keeping connections warm): every request that
		// did arrive was answered, so close them rather than fail.
		err = srv.Close()
	}
	if serveErr := <-served; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}

// String describes the receiver's checks for its start-up line; it names
// the header, never its value.
func (r *Receiver) String() string {
	var parts []string
	if r.HeaderTitle != "" {
		parts = append(parts, "checking header "+r.HeaderTitle+": ✓ marks a notification that carried it")
	} else {
		parts = append(parts, "no header check")
	}
	if r.ForwardTo != "" {
		parts = append(parts, "forwarding to "+r.ForwardTo)
	}
	if r.FailFirst > 0 {
		parts = append(parts, fmt.Sprintf("answering the first %d with 500", r.FailFirst))
	}
	if r.Max > 0 {
		parts = append(parts, fmt.Sprintf("stopping after %d", r.Max))
	}
	return strings.Join(parts, ", ")
}
