package disputes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/config"
	"github.com/bnpl-cli/bnpl/internal/output"
)

func nowFixed() time.Time { return time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC) }

const disputeID = "9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11"

// The fixtures are real files: a 1x1 PNG and a one-page PDF.
var (
	pngBytes = mustRead("../../testdata/disputes/parcel.png")
	pdfBytes = mustRead("../../testdata/disputes/receipt.pdf")
)

func mustRead(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return b
}

func TestRequireLive(t *testing.T) {
	test := func() (*config.Target, error) { return &config.Target{Live: false}, nil }
	err := RequireLive(test, "disputes")
	var h interface{ Hint() string }
	if cmdutil.ExitCode(err) != 2 || !strings.Contains(err.Error(), "disputes have no test mode, and there is no live key to use") ||
		!errors.As(err, &h) || !strings.Contains(h.Hint(), "bnpl login --profile NAME --with-key") {
		t.Errorf("test target: %v", err)
	}
	refused := cmdutil.Refuse("add it", "dispute webhooks have no test mode, and profile shop has no live key")
	if err := RequireLive(func() (*config.Target, error) { return nil, refused }, "dispute webhooks"); err != refused {
		t.Errorf("the target's refusal is not passed on: %v", err)
	}
	live := func() (*config.Target, error) { return &config.Target{Live: true}, nil }
	if err := RequireLive(live, "disputes"); err != nil {
		t.Errorf("live: %v", err)
	}
}

func TestTestModeSendsNothing(t *testing.T) {
	fs, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) {})
	d := newDeps(t, srv.URL, false)
	ctx := context.Background()
	runs := map[string]error{
		"list":      listRun(ctx, &ListOptions{Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer}),
		"get":       getRun(ctx, &GetOptions{ID: disputeID, Target: d.target, Client: d.client, Printer: d.printer}),
		"upload":    uploadRun(ctx, &UploadOptions{Path: "x.png", IO: d.ios, Target: d.target, Client: d.client, Printer: d.printer}),
		"evidence":  evidenceRun(ctx, &EvidenceOptions{AnswerOptions: AnswerOptions{ID: disputeID, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer}, Comment: "c"}),
		"challenge": challengeRun(ctx, &ChallengeOptions{AnswerOptions: AnswerOptions{ID: disputeID, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer}, Reason: "merchant_reason_other", Description: "d"}),
		"approve":   approveRun(ctx, &ApproveOptions{IDs: []string{disputeID}, Confirm: func(string) error { return nil }, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer}),
	}
	for name, err := range runs {
		if cmdutil.ExitCode(err) != 2 || !strings.Contains(err.Error(), "no test mode") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if fs.count() != 0 {
		t.Errorf("%d requests sent in test mode", fs.count())
	}
}

func TestListAllWalksPages(t *testing.T) {
	pages := map[string]string{
		"":   `{"disputes":[{"id":"a1","status":"new"},{"id":"a2","status":"new"}],"next_page_token":"p2"}`,
		"p2": `{"disputes":[{"id":"b1","status":"declined"}],"next_page_token":"p3"}`,
		"p3": `{"disputes":[],"next_page_token":""}`,
	}
	fs, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		fmt.Fprint(w, pages[r.URL.Query().Get("page_token")])
	})
	d := newDeps(t, srv.URL, true)
	opts := &ListOptions{Statuses: []string{"New", "declined", "", "new"}, Since: "2026-01-01", All: true, Now: nowFixed, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer}
	if err := opts.validate(); err != nil {
		t.Fatal(err)
	}
	if err := listRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(d.out.Bytes(), &got); err != nil {
		t.Fatalf("output %q: %v", d.out, err)
	}
	if len(got) != 3 || got[2]["id"] != "b1" {
		t.Errorf("output %v", got)
	}
	if fs.count() != 3 {
		t.Fatalf("%d requests", fs.count())
	}
	if q := fs.requests[0].Query; q != "created_at_gte=2026-01-01T00%3A00%3A00Z&statuses=new&statuses=declined" {
		t.Errorf("first query %q", q)
	}
	if q := fs.requests[2].Query; !strings.Contains(q, "page_token=p3") {
		t.Errorf("third query %q", q)
	}
}

func TestListOnePageNamesTheNextToken(t *testing.T) {
	_, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		fmt.Fprint(w, `{"disputes":[{"id":"a1"}],"next_page_token":"p2"}`)
	})
	d := newDeps(t, srv.URL, true)
	var notices []string
	notice := func(f string, a ...any) { notices = append(notices, fmt.Sprintf(f, a...)) }
	if err := listRun(context.Background(), &ListOptions{Statuses: []string{"escalated"}, Notice: notice, Target: d.target, Client: d.client, Printer: d.printer}); err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(notices, "\n")
	if !strings.Contains(joined, `"escalated" is not a known dispute status`) || !strings.Contains(joined, "--page-token p2") {
		t.Errorf("notices %q", joined)
	}
}

func TestListStopsOnARepeatedToken(t *testing.T) {
	_, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		fmt.Fprint(w, `{"disputes":[],"next_page_token":"same"}`)
	})
	d := newDeps(t, srv.URL, true)
	err := listRun(context.Background(), &ListOptions{All: true, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer})
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("got %v", err)
	}
}

func TestApproveBatches(t *testing.T) {
	var ids []string
	for i := 0; i < 45; i++ {
		ids = append(ids, fmt.Sprintf("9d7c1c2e-1111-4a5b-9c3d-%012d", i))
	}
	failBatch := 0
	fs, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method == http.MethodGet {
			fmt.Fprintf(w, `{"id":%q,"amount":"1.00","currency":"AED","status":"new"}`, strings.TrimPrefix(r.URL.Path, "/api/v1/disputes/"))
			return
		}
		var req api.ApproveRequest
		_ = json.Unmarshal(body, &req)
		if failBatch > 0 && req.DisputeIDs[0] == ids[(failBatch-1)*20] {
			w.WriteHeader(500)
			fmt.Fprint(w, `{"status":"error","errorType":"internal","error":"Internal Server Error"}`)
			return
		}
		fmt.Fprint(w, `{"status":"ok"}`)
	})
	d := newDeps(t, srv.URL, true)
	var asked string
	opts := &ApproveOptions{IDs: ids, Confirm: func(what string) error { asked = what; return nil }, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer}
	if err := approveRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(asked, "approve 45 dispute(s)") {
		t.Errorf("confirmation %q", asked)
	}
	sizes := []int{}
	for _, r := range fs.requests {
		if r.Method == http.MethodGet {
			continue
		}
		var req api.ApproveRequest
		_ = json.Unmarshal(r.Body, &req)
		sizes = append(sizes, len(req.DisputeIDs))
	}
	if fmt.Sprint(sizes) != "[20 20 5]" {
		t.Errorf("batch sizes %v", sizes)
	}

	// The second batch fails: the first stays approved and is listed, the
	// rest is named for a rerun, the third is not sent.
	fs.requests = nil
	d.out.Reset()
	failBatch = 2
	err := approveRun(context.Background(), opts)
	if cmdutil.ExitCode(err) != 9 {
		t.Fatalf("exit %d: %v", cmdutil.ExitCode(err), err)
	}
	var h interface{ Hint() string }
	if !errors.As(err, &h) || !strings.Contains(h.Hint(), "20 dispute(s)") || !strings.Contains(h.Hint(), ids[20]) || !strings.Contains(h.Hint(), ids[44]) || strings.Contains(h.Hint(), ids[19]) {
		t.Errorf("hint %q", h.Hint())
	}
	if fs.count() != 45+2 {
		t.Errorf("%d requests", fs.count())
	}
	var rows []map[string]any
	if err := json.Unmarshal(d.out.Bytes(), &rows); err != nil || len(rows) != 20 {
		t.Errorf("approved rows %d: %v", len(rows), err)
	}
}

func TestApproveNeedsConfirmation(t *testing.T) {
	fs, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		fmt.Fprintf(w, `{"id":%q,"amount":"1.00","currency":"AED","status":"new"}`, disputeID)
	})
	d := newDeps(t, srv.URL, true)
	refuse := func(string) error { return cmdutil.Refuse("pass --yes", "not confirmed") }
	err := approveRun(context.Background(), &ApproveOptions{IDs: []string{disputeID}, Confirm: refuse, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer})
	if cmdutil.ExitCode(err) != 2 || fs.count() != 1 || fs.requests[0].Method != http.MethodGet {
		t.Errorf("exit %d, %d requests", cmdutil.ExitCode(err), fs.count())
	}
}

// A dispute that cannot be approved is refused before anything is asked,
// named with its status; an already refunded one is not counted as money
// to refund; a refused request names its dispute and prints nothing.
func TestApproveRefusesWhatIsNotApprovable(t *testing.T) {
	const declined, refunded = "9d7c1c2e-2222-4a5b-9c3d-2b6f4e8a0c11", "9d7c1c2e-3333-4a5b-9c3d-2b6f4e8a0c11"
	statuses := map[string]string{disputeID: "new", declined: "declined", refunded: "refunded"}
	conflict := false
	fs, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method == http.MethodGet {
			id := strings.TrimPrefix(r.URL.Path, "/api/v1/disputes/")
			fmt.Fprintf(w, `{"id":%q,"amount":"200.00","currency":"AED","status":%q}`, id, statuses[id])
			return
		}
		if conflict {
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"status":"error","errorType":"conflict","error":""}`)
			return
		}
		fmt.Fprint(w, `{"status":"ok"}`)
	})
	d := newDeps(t, srv.URL, true)
	asked := ""
	opts := func(ids ...string) *ApproveOptions {
		return &ApproveOptions{IDs: ids, Confirm: func(what string) error { asked = what; return nil }, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer}
	}
	err := approveRun(context.Background(), opts(disputeID, declined))
	if cmdutil.ExitCode(err) != 2 || err == nil || err.Error() != "cannot approve: dispute "+declined+" is declined" || asked != "" {
		t.Errorf("exit %d: %v (asked %q)", cmdutil.ExitCode(err), err, asked)
	}
	for _, r := range fs.requests {
		if r.Method != http.MethodGet {
			t.Errorf("a refused approval sent %s %s", r.Method, r.Path)
		}
	}
	if d.out.Len() != 0 {
		t.Errorf("stdout %q", d.out)
	}

	if err := approveRun(context.Background(), opts(disputeID, refunded)); err != nil {
		t.Fatal(err)
	}
	if want := "approve 2 dispute(s) of merchant shop-ae, refunding 200.00 AED to the customers (1 already refunded: no new refund)"; asked != want {
		t.Errorf("asked %q, want %q", asked, want)
	}

	d.out.Reset()
	conflict = true
	err = approveRun(context.Background(), opts(disputeID))
	if cmdutil.ExitCode(err) != 7 || err == nil || !strings.Contains(err.Error(), "approving dispute "+disputeID) {
		t.Errorf("exit %d: %v", cmdutil.ExitCode(err), err)
	}
	if d.out.Len() != 0 {
		t.Errorf("a refused approval printed %q on stdout", d.out)
	}
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEvidenceUploadsFilesFirst(t *testing.T) {
	uploads := 0
	fs, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		switch r.URL.Path {
		case "/api/v1/disputes/attachments/upload":
			uploads++
			fmt.Fprintf(w, `{"id":"00000000-0000-4000-8000-00000000000%d"}`, uploads)
		case "/api/v1/disputes/" + disputeID + "/provide-evidence":
			var req api.EvidenceRequest
			_ = json.Unmarshal(body, &req)
			writeJSON(w, map[string]any{"id": "e1", "dispute_id": disputeID, "content": req.Content, "created_by": "merchant", "attachment_ids": req.AttachmentIDs})
		default:
			w.WriteHeader(404)
		}
	})
	d := newDeps(t, srv.URL, true)
	png := writeFile(t, "photo.png", pngBytes)
	pdf := writeFile(t, "receipt.dat", pdfBytes) // the content decides, not the name
	earlier := "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	opts := &EvidenceOptions{AnswerOptions: AnswerOptions{ID: disputeID, Attach: []string{png, earlier, pdf}, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer}, Comment: "Delivered"}
	if err := evidenceRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	paths := []string{}
	for _, r := range fs.requests {
		paths = append(paths, r.Path)
	}
	if len(paths) != 3 || !strings.HasSuffix(paths[2], "/provide-evidence") || !strings.HasPrefix(fs.requests[0].ContentType, "multipart/form-data") {
		t.Fatalf("requests %v", paths)
	}
	var sent api.EvidenceRequest
	_ = json.Unmarshal(fs.requests[2].Body, &sent)
	want := []string{"00000000-0000-4000-8000-000000000001", earlier, "00000000-0000-4000-8000-000000000002"}
	if sent.Content != "Delivered" || fmt.Sprint(sent.AttachmentIDs) != fmt.Sprint(want) {
		t.Errorf("evidence %+v", sent)
	}
	if !strings.Contains(d.out.String(), `"created_by":"merchant"`) {
		t.Errorf("output %q", d.out)
	}
}

func TestAttachmentsAreCheckedBeforeAnyUpload(t *testing.T) {
	fs, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		fmt.Fprint(w, `{"id":"00000000-0000-4000-8000-000000000001"}`)
	})
	d := newDeps(t, srv.URL, true)
	png := writeFile(t, "photo.png", pngBytes)
	text := writeFile(t, "notes.png", mustRead("../../testdata/disputes/notes.txt"))
	big := writeFile(t, "big.pdf", append(append([]byte{}, pdfBytes...), make([]byte, 6<<20)...))
	cases := map[string]struct {
		attach []string
		want   string
	}{
		"text":     {[]string{png, text}, "notes.png is text/plain"},
		"too big":  {[]string{png, big}, "big.pdf is 6.0 MB"},
		"missing":  {[]string{png, "nope.pdf"}, `"nope.pdf": no such file, and not an attachment id`},
		"too many": {[]string{png, png, png, png, png, png}, "at most 5 attachments"},
		"empty":    {[]string{writeFile(t, "empty.pdf", nil)}, "empty.pdf is empty"},
	}
	for name, c := range cases {
		err := evidenceRun(context.Background(), &EvidenceOptions{AnswerOptions: AnswerOptions{ID: disputeID, Attach: c.attach, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer}, Comment: "c"})
		if cmdutil.ExitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: exit %d, %v", name, cmdutil.ExitCode(err), err)
		}
		err = challengeRun(context.Background(), &ChallengeOptions{AnswerOptions: AnswerOptions{ID: disputeID, Attach: c.attach, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer}, Reason: "merchant_reason_other", Description: "d"})
		if cmdutil.ExitCode(err) != 2 {
			t.Errorf("challenge %s: %v", name, err)
		}
	}
	if fs.count() != 0 {
		t.Errorf("%d requests sent", fs.count())
	}
}

func TestChallengeValidation(t *testing.T) {
	cases := []struct {
		reason, amount, desc string
		want                 string // "" means valid
	}{
		{"merchant_reason_other", "", "d", ""},
		{"order_on_its_way", "", "d", ""},
		{"ORDER_AMOUNT_SHOULD_BE_DIFFERENT", "80.00", "d", ""},
		{"merchant_reason_order_amount_should_be_different", "", "d", "needs --amount"},
		{"merchant_reason_other", "10", "d", "--amount goes only with"},
		{"order_amount_should_be_different", "-1", "d", "greater than zero"},
		{"order_amount_should_be_different", "1e3", "d", "exponent notation"},
		{"because", "", "d", `invalid --reason "because"`},
		{"", "", "d", "--reason is required"},
		{"merchant_reason_other", "", " ", "--description is required"},
	}
	for _, c := range cases {
		o := &ChallengeOptions{AnswerOptions: AnswerOptions{ID: disputeID}, Reason: c.reason, Amount: c.amount, Description: c.desc}
		err := o.validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q/%q: %v", c.reason, c.amount, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || cmdutil.ExitCode(err) != 2):
			t.Errorf("%q/%q: got %v, want %q", c.reason, c.amount, err, c.want)
		case c.want == "" && !strings.HasPrefix(o.Reason, reasonPrefix):
			t.Errorf("%q: reason not completed: %q", c.reason, o.Reason)
		}
	}
}

func TestChallengeSendsAmount(t *testing.T) {
	fs, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) { fmt.Fprint(w, `{"status":"ok"}`) })
	d := newDeps(t, srv.URL, true)
	o := &ChallengeOptions{AnswerOptions: AnswerOptions{ID: disputeID, Notice: d.notice, Target: d.target, Client: d.client, Printer: d.printer}, Reason: "order_amount_should_be_different", Amount: "80.50", Description: "one item returned"}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	if err := challengeRun(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	want := `{"dispute_id":"` + disputeID + `","description":"one item returned","reason":"merchant_reason_order_amount_should_be_different","amount":"80.5"}`
	if fs.count() != 1 || string(fs.requests[0].Body) != want {
		t.Errorf("sent %s", fs.requests[0].Body)
	}
}

func TestUploadPrintsTheID(t *testing.T) {
	_, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		fmt.Fprint(w, `{"id":"00000000-0000-4000-8000-000000000009"}`)
	})
	d := newDeps(t, srv.URL, true)
	d.printer = func() (*output.Printer, error) { return output.NewPrinter(d.ios, output.Options{}) }
	if err := uploadRun(context.Background(), &UploadOptions{Path: writeFile(t, "p.png", pngBytes), IO: d.ios, Target: d.target, Client: d.client, Printer: d.printer}); err != nil {
		t.Fatal(err)
	}
	if d.out.String() != "00000000-0000-4000-8000-000000000009\n" {
		t.Errorf("output %q", d.out)
	}
}

func TestApproveConfirmationNamesWhatIsAtStake(t *testing.T) {
	amounts := map[string]string{
		"9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11": `{"id":"9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11","amount":"20.00","currency":"AED","status":"new"}`,
		"9d7c1c2e-2222-4a5b-9c3d-2b6f4e8a0c11": `{"id":"9d7c1c2e-2222-4a5b-9c3d-2b6f4e8a0c11","amount":"10.5","currency":"AED","status":"new"}`,
		"9d7c1c2e-3333-4a5b-9c3d-2b6f4e8a0c11": `{"dispute":{"id":"9d7c1c2e-3333-4a5b-9c3d-2b6f4e8a0c11","amount":"5","currency":"KWD","status":"new"}}`,
	}
	fs, srv := newFakeService(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method == http.MethodGet {
			fmt.Fprint(w, amounts[strings.TrimPrefix(r.URL.Path, "/api/v1/disputes/")])
		}
	})
	d := newDeps(t, srv.URL, true)
	ids := []string{"9d7c1c2e-1111-4a5b-9c3d-2b6f4e8a0c11", "9d7c1c2e-2222-4a5b-9c3d-2b6f4e8a0c11", "9d7c1c2e-3333-4a5b-9c3d-2b6f4e8a0c11"}
	var asked string
	err := approveRun(context.Background(), &ApproveOptions{IDs: ids,
		Confirm: func(what string) error { asked = what; return cmdutil.ErrNotConfirmed },
		Notice:  d.notice, Target: d.target, Client: d.client, Printer: d.printer})
	if err != cmdutil.ErrNotConfirmed {
		t.Fatalf("err = %v", err)
	}
	want := "approve 3 dispute(s) of merchant shop-ae, refunding 30.50 AED and 5.000 KWD to the customers"
	if asked != want {
		t.Errorf("asked %q, want %q", asked, want)
	}
	for _, r := range fs.requests {
		if r.Method != http.MethodGet {
			t.Errorf("a declined approval sent %s %s", r.Method, r.Path)
		}
	}
}
