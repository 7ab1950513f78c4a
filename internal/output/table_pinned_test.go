package output

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clipperhouse/displaywidth"
)

// A column named in --columns is never dropped: text is cut as far as its
// kind allows, and what still does not fit is said.
func TestPinnedColumnsStay(t *testing.T) {
	headers := []string{"ID", "STATUS", "AMOUNT", "BUYER", "REFERENCE", "CREATED"}
	rows := [][]string{{"3fa85f64-5717-4562-b3fc-2c963f66afa6", "AUTHORIZED", "1250.00 AED", "Layla Haddad <layla.haddad@example.com>", "ORDER-WITH-A-LONG-NUMBER-2026-000001", "2026-11-25 14:38:00Z"}}
	kinds := []Kind{KindID, KindStatus, KindMoney, KindText, KindReference, KindTime}
	loose := planTable(headers, rows, kinds, 80, true)
	dropped := 0
	for _, c := range loose {
		if !c.show {
			dropped++
		}
	}
	if dropped == 0 {
		t.Fatal("the unpinned table dropped nothing at 80: the test proves nothing")
	}
	pinned := make([]Kind, len(kinds))
	for i, k := range kinds {
		pinned[i] = Pinned(k)
	}
	plan := planTable(headers, rows, pinned, 80, true)
	for i, c := range plan {
		if !c.show {
			t.Errorf("pinned column %s was dropped", headers[i])
		}
		if c.kind == KindID && c.width < len(rows[0][i]) {
			t.Errorf("the id was cut to %d", c.width)
		}
	}
	if plan[3].width >= len(rows[0][3]) && !overflows(plan, 80) {
		t.Error("neither cut nor shown as records")
	}
	if overflows(planTable(headers, rows, pinned, 200, true), 200) {
		t.Error("a table that fits is said not to")
	}
}

// A wrapped column goes on over more lines, between words, never cut.
func TestWrappedCells(t *testing.T) {
	got := wrapCell("could not capture payment: amount 99999.00 is more than the rest", 12)
	want := []string{"could not", "capture", "payment:", "amount", "99999.00 is", "more than", "the rest"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrapCell: %q", got)
	}
	if got := wrapCell("abcdefghijklmnop", 6); strings.Join(got, "|") != "abcdef|ghijkl|mnop" {
		t.Errorf("a long word: %q", got)
	}
	plan := []colPlan{{kind: KindTime, show: true, width: 5}, {kind: KindText, show: true, width: 10, wrap: true}}
	rows := wrapRow([]string{"09:31", "no such payment here"}, plan, true)
	if len(rows) != 3 || rows[2][1] != "here" || rows[0][0] != "09:31" || rows[0][1] != "no such" || rows[1][0] != "" || rows[1][1] != "payment" {
		t.Errorf("wrapRow: %q", rows)
	}
	if rows := wrapRow([]string{"09:31", "no such payment here"}, plan, false); len(rows) != 1 {
		t.Errorf("piped, a row was wrapped: %q", rows)
	}
}

// A column named in --columns wraps its cells rather than being cut, and
// never breaks a word it can keep; ids and amounts stay whole.
func TestPinnedColumnsWrap(t *testing.T) {
	headers := []string{"ID", "STATUS", "AMOUNT", "REFERENCE", "CREATED"}
	rows := [][]string{{"3fa85f64-5717-4562-b3fc-2c963f66afa6", "AUTHORIZED", "1250.00 AED", "ORDER-2026-004711", "2026-11-25 14:38:00Z"}}
	kinds := []Kind{Pinned(KindID), Pinned(KindStatus), Pinned(KindMoney), Pinned(KindReference), Pinned(KindTime)}
	plan := planTable(headers, rows, kinds, 90, true)
	var b strings.Builder
	if err := renderTable(&b, &ColorScheme{}, headers, rows, plan, nil, true); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if strings.Contains(got, "…") {
		t.Errorf("a named column was cut:\n%s", got)
	}
	for _, want := range []string{"3fa85f64-5717-4562-b3fc-2c963f66afa6", "AUTHORIZED", "1250.00 AED", "2026-11-25", "14:38:00Z"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q is not whole on one line:\n%s", want, got)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		if len([]rune(line)) > 90 {
			t.Errorf("line wider than 90: %q", line)
		}
	}
	if overflows(plan, 90) {
		t.Errorf("fits by wrapping, yet overflows")
	}
}

// A view's Below column goes under its row when even wrapped it has no
// room in the line; ids, times and amounts keep theirs.
func TestBelowColumnsSpill(t *testing.T) {
	headers := []string{"AT", "EVENT", "AMOUNT", "ID", "DETAIL"}
	rows := [][]string{
		{"2026-11-22 10:00:00Z", "captured", "1000.00 AED", "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f", "reference capture-for-the-shoes-and-the-jacket"},
		{"", "closed", "", "", "captured in full"},
	}
	kinds := []Kind{Whole(KindTime), Below(KindID), KindMoney, KindID, Below(KindText)}
	render := func(width int) string {
		plan := planTable(headers, rows, kinds, width, true)
		if overflows(plan, width) {
			t.Errorf("at %d: overflows", width)
		}
		var b strings.Builder
		if err := renderTable(&b, &ColorScheme{}, headers, rows, plan, nil, true); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	narrow := render(80)
	want := "AT                    AMOUNT       ID\n" +
		"                      EVENT: DETAIL\n" +
		"2026-11-22 10:00:00Z  1000.00 AED  c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f\n" +
		"                      captured: reference capture-for-the-shoes-and-the-jacket\n" +
		"                      closed: captured in full\n"
	if narrow != want {
		t.Errorf("at 80:\n%s\nwant:\n%s", narrow, want)
	}
	wide := render(200)
	if strings.Count(wide, "\n") != 3 || !strings.Contains(wide, "captured  1000.00 AED") {
		t.Errorf("at 200 a column went under its row:\n%s", wide)
	}
}

// A path wraps after a "/", so an id in it stays on one line; a wrapped
// id column is never narrower than its widest piece.
func TestPathsWrapAfterSlash(t *testing.T) {
	path := "/api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6/captures"
	got := wrapCell(path, 40)
	if strings.Join(got, "|") != "/api/v2/payments/|3fa85f64-5717-4562-b3fc-2c963f66afa6/|captures" {
		t.Errorf("wrapCell: %q", got)
	}
	if m := wrapMinimum("PATH", [][]string{{path}}, 0, KindID); m != 37 {
		t.Errorf("minimum %d, want the id and its slash, 37", m)
	}
	if got := wrapCell("ORDER-2026-004711", 12); strings.Join(got, "|") != "ORDER-|2026-004711" {
		t.Errorf("a reference: %q", got)
	}
}

// An id under its row wider than the room there starts further left:
// whole, on one line, and within the terminal.
func TestBelowIDStaysWithinTheTerminal(t *testing.T) {
	headers := []string{"ID", "AMOUNT", "REFERENCE", "CREATED"}
	rows := [][]string{{"9a663d82-719e-405f-b545-87d9f68b83d8", "10.00 AED", "capture-for-the-shoes-and-the-jacket-and-more", "2026-11-27 23:15:40Z"}}
	kinds := []Kind{KindID, KindMoney, Below(KindID), KindTime}
	plan := planTable(headers, rows, kinds, 80, true)
	var b strings.Builder
	if err := renderTable(&b, &ColorScheme{}, headers, rows, plan, nil, true); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if !strings.Contains(got, "capture-for-the-shoes-and-the-jacket-and-more") {
		t.Errorf("the reference is not whole:\n%s", got)
	}
	for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("line wider than 80: %q", line)
		}
	}
}

// A timeline's detail stays beside its row only with room to be read
// there: never a narrow strip down the right edge a few words a line, nor
// a column that parts a capture's reference id. Under its row it has the
// width of the terminal.
func TestBelowColumnsTakeTheRoomUnderTheirRow(t *testing.T) {
	headers := []string{"AT", "EVENT", "AMOUNT", "ID", "DETAIL"}
	kinds := []Kind{Whole(KindTime), Below(KindID), KindMoney, KindID, Below(KindText)}
	words := [][]string{
		{"2026-11-22 10:00:00Z", "created", "1000.00 AED", "", "checkout session opened by the customer at the shop"},
		{"2026-11-22 10:05:00Z", "captured", "1000.00 AED", "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f", "reference shoes; the customer picked the order up"},
	}
	ids := [][]string{
		{"2026-11-22 10:05:00Z", "captured", "100.00 AED", "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f", "reference 1b7c8ec2-de97-4af0-a068-754c3eedc52f; shoes"},
		{"2026-11-22 10:06:00Z", "closed", "", "", "900.00 AED not captured"},
	}
	for _, rows := range [][][]string{words, ids} {
		for _, width := range []int{100, 110, 120, 125} {
			plan := planTable(headers, rows, kinds, width, true)
			var b strings.Builder
			if err := renderTable(&b, &ColorScheme{}, headers, rows, plan, nil, true); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			if d := plan[4]; d.show && d.width < minBelowWidth {
				t.Errorf("at %d: DETAIL in the line %d cells wide:\n%s", width, d.width, got)
			}
			if strings.Contains(rows[0][4], "1b7c8ec2") && !strings.Contains(got, "1b7c8ec2-de97-4af0-a068-754c3eedc52f") {
				t.Errorf("at %d: the reference id is broken:\n%s", width, got)
			}
			for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if len([]rune(line)) > width {
					t.Errorf("at %d: line wider: %q", width, line)
				}
			}
		}
	}
}

// A nested field shown as JSON (--columns buyer) wraps after a "," between
// its members, in a table's column and in records alike, never at a space
// inside a string: "Layla Haddad" is not read as "Layla" and a stray
// "Haddad".
func TestJSONCellsWrapBetweenMembers(t *testing.T) {
	rec := json.RawMessage(`{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","buyer":{"dob":"1990-04-12","email":"otp.success@tabby.ai","name":"Layla Haddad","phone":"+971500000001"},"description":"a pair of trail running shoes, size 42, and two insulated water bottles of 750 ml"}`)
	for _, tc := range []struct {
		width   int
		columns []string
	}{
		{80, []string{"id", "buyer"}},
		{60, []string{"id", "buyer", "description"}}, // records
	} {
		tp := newTestPrinter(t, true, tc.width, Options{Columns: tc.columns})
		if err := tp.p.List(nil, []json.RawMessage{rec}); err != nil {
			t.Fatal(err)
		}
		got := tp.out.String()
		for _, whole := range []string{`"name":"Layla Haddad",`, `"email":"otp.success@tabby.ai",`} {
			if !strings.Contains(got, whole) {
				t.Errorf("at %d, %q is not whole on one line:\n%s", tc.width, whole, got)
			}
		}
		for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if w := displaywidth.String(line); w > tc.width {
				t.Errorf("at %d: a line %d wide: %q", tc.width, w, line)
			}
		}
	}
	// A member wider than the line breaks after its name; a string wider
	// than the line is the only thing split.
	got := wrapJSON(`{"reference_id":"SKU-TRS-42","title":"Trail running shoes"}`, 20)
	if want := `{"reference_id":|"SKU-TRS-42",|"title":|"Trail running shoes|"}`; strings.Join(got, "|") != want {
		t.Errorf("wrapJSON at 20: %q", got)
	}
}

// An id written in free text (a request quoted in a difference) is never
// broken at its hyphens: the column is at least as wide as the id, or the
// table is shown as records.
func TestIDsInTextStayWhole(t *testing.T) {
	const id = "349b37d3-cef0-4089-b71a-ca4294561da6"
	cell := `"POST /api/v2/payments/` + id + `/captures"`
	if m := wrapMinimum("RECORDED", [][]string{{cell}}, 0, KindText); m < len(id)+1 {
		t.Errorf("minimum %d: narrower than the id and its slash", m)
	}
	for _, width := range []int{38, 60} {
		got := strings.Join(wrapCell(cell, width), "\n")
		if !strings.Contains(got, id) {
			t.Errorf("at %d the id is broken:\n%s", width, got)
		}
	}
	if got := wrapPieces("ORDER-2026-004711 "+id, KindText); strings.Join(got, "|") != "ORDER-|2026-004711 |"+id {
		t.Errorf("pieces %q", got)
	}
}

// A URL wider than the terminal under its row is on a line of its own,
// whole; the text beside it under the row still wraps within the terminal
// rather than at the URL's width.
func TestBelowURLWiderThanTheTerminal(t *testing.T) {
	const url = "https://notifications.very-long-merchant-domain-name.example.com/integrations/bnpl/v2/payment-events/receiver?tenant=acme"
	headers := []string{"TIME", "ID", "STATUS", "RESULT", "URL"}
	rows := [][]string{{"2026-11-28 17:49:03Z", "4d499542-f8b1-4fe9-8545-b6ac5515bab8", "failed",
		"not sent: this sandbox looks no host names up (start it with --resolve-hosts to deliver to notifications.very-long-merchant-domain-name.example.com)", url}}
	kinds := []Kind{Whole(KindTime), KindID, KindStatus, Below(KindText), Below(KindID)}
	for _, width := range []int{80, 100} {
		plan := planTable(headers, rows, kinds, width, true)
		var b strings.Builder
		if err := renderTable(&b, &ColorScheme{}, headers, rows, plan, nil, true); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if lines[len(lines)-1] != url {
			t.Errorf("at %d the URL is not whole on the last line:\n%s", width, got)
		}
		for _, line := range lines[:len(lines)-1] {
			if len([]rune(line)) > width {
				t.Errorf("at %d: line wider: %q", width, line)
			}
		}
	}
}

// A row that shows nothing but its id in the line starts what went under
// it on that line only where it fits: a URL wider than the room stays on a
// line of its own, whole, rather than beside the id past the edge.
func TestBelowURLBesideALoneID(t *testing.T) {
	const url = "https://notifications.very-long-merchant-domain-name.example.com/integrations/bnpl/v2/payment-events/receiver?tenant=acme"
	headers := []string{"ID", "HEADER", "URL"}
	rows := [][]string{
		{"4d499542-f8b1-4fe9-8545-b6ac5515bab8", "", url},
		{"0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e", "", "https://shop.example.com/d"},
	}
	kinds := []Kind{KindID, KindText, Below(KindID)}
	for _, width := range []int{80, 150} {
		plan := planTable(headers, rows, kinds, width, true)
		var b strings.Builder
		if err := renderTable(&b, &ColorScheme{}, headers, rows, plan, nil, true); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		alone := false
		for _, line := range strings.Split(got, "\n") {
			alone = alone || strings.TrimSpace(line) == url
		}
		if !alone {
			t.Errorf("at %d the URL is not whole on a line of its own:\n%s", width, got)
		}
		if !strings.Contains(got, "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e  https://shop.example.com/d") {
			t.Errorf("at %d a URL that fits does not start beside its id:\n%s", width, got)
		}
		for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if strings.TrimSpace(line) != url && len([]rune(line)) > width {
				t.Errorf("at %d: line wider: %q", width, line)
			}
		}
	}
}
