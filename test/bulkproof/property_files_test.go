package bulkproof

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding/charmap"
)

// writeCopies writes the copies of the moves, by name: base (apply, LF),
// crlf, bom (a byte-order mark, payments in reverse order, columns
// reordered, amounts written otherwise, every field quoted), win
// (Windows-1252), caps, closes and refunds (each op alone), edited (the
// refunds' free text changed, run without --allow-repeats, so it leaves out
// the second of two identical rows, which would need it) and meant (every
// row, the refunds' free text changed as in edited, run with
// --allow-repeats: its edited refunds are new moves a user asked for).
func (p *property) writeCopies() map[string]string {
	header := []string{"op", "payment_id", "amount", "reference_id", "reason"}
	cells := func(m propMove, reason string) []string {
		return []string{m.op, p.plan[m.pay].id, m.amount, m.ref, reason}
	}
	var base, editedRows, meantRows [][]string
	byOp := map[string][][]string{}
	for k, m := range p.moves {
		base = append(base, cells(m, m.reason))
		meantRows = append(meantRows, cells(m, m.edited))
		if k == 0 || !slices.Equal(cells(m, m.reason), cells(p.moves[k-1], p.moves[k-1].reason)) {
			editedRows = append(editedRows, cells(m, m.edited))
		}
		byOp[m.op] = append(byOp[m.op], cells(m, m.reason))
	}
	files := map[string]string{
		"base":   p.writeCSV("base.csv", header, base, "\n", ""),
		"crlf":   p.writeCSV("crlf.csv", header, base, "\r\n", ""),
		"edited": p.writeCSV("edited.csv", header, editedRows, "\n", ""),
		"meant":  p.writeCSV("meant.csv", header, meantRows, "\n", ""),
		"bom":    p.writeReordered(),
	}
	for op, name := range map[string]string{"capture": "caps", "close": "closes", "refund": "refunds"} {
		rows := byOp[op]
		cols := header[1:]
		for i := range rows {
			rows[i] = rows[i][1:]
		}
		if op == "close" {
			cols = cols[:1]
			for i := range rows {
				rows[i] = rows[i][:1]
			}
		}
		files[name] = p.writeCSV(name+".csv", cols, rows, "\n", "")
	}
	utf8Text, err := os.ReadFile(files["base"])
	if err != nil {
		p.t.Fatal(err)
	}
	win, err := charmap.Windows1252.NewEncoder().Bytes(utf8Text)
	if err != nil {
		p.t.Fatal(err)
	}
	files["win"] = filepath.Join(p.dir, "moves.win.csv")
	if err := os.WriteFile(files["win"], win, 0o600); err != nil {
		p.t.Fatal(err)
	}
	return files
}

// writeReordered is the copy with a byte-order mark, the payments in
// reverse order (each payment's rows kept in order: they are a sequence),
// the columns in another order, amounts as a person might write them, and
// every field quoted.
func (p *property) writeReordered() string {
	var b strings.Builder
	b.WriteString("\ufeff\"reason\",\"amount\",\"payment_id\",\"op\",\"reference_id\"\n")
	for i := len(p.plan) - 1; i >= 0; i-- {
		for _, m := range p.moves {
			if m.pay != i {
				continue
			}
			amount := m.written
			if m.op == "close" {
				amount = ""
			}
			b.WriteString(`"` + m.reason + `","` + amount + `","` + strings.ToUpper(p.plan[i].id) + `","` + strings.ToUpper(m.op) + `","` + m.ref + "\"\n")
		}
	}
	path := filepath.Join(p.dir, "bom.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		p.t.Fatal(err)
	}
	return path
}

func (p *property) writeCSV(name string, header []string, rows [][]string, eol, prefix string) string {
	path := filepath.Join(p.dir, name)
	var b strings.Builder
	b.WriteString(prefix)
	w := csv.NewWriter(&b)
	w.UseCRLF = eol == "\r\n"
	_ = w.Write(header)
	for _, r := range rows {
		_ = w.Write(r)
	}
	w.Flush()
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		p.t.Fatal(err)
	}
	return path
}

// checkService reads every payment: each intended move is there exactly
// once (the captures and refunds, by amount, each refund twice: the
// moves' own and the meant copy's edited one; every payment CLOSED), and
// nothing else is. It returns the money the service holds of them.
func (p *property) checkService() decimal.Decimal {
	t := p.t
	get := verifier(t, serverURL(p.env))
	held := decimal.Zero
	for i, pp := range p.plan {
		pay := get(pp.id)
		var wantCaps, wantRefs, gotCaps, gotRefs []string
		rest := pp.amount
		for _, m := range p.moves {
			switch {
			case m.pay != i || m.op == "close":
			case m.op == "refund":
				wantRefs = append(wantRefs, m.amount, m.amount)
			case m.amount == "full":
				wantCaps = append(wantCaps, rest.StringFixed(2))
			default:
				d := decimal.RequireFromString(m.amount)
				rest = rest.Sub(d)
				wantCaps = append(wantCaps, d.StringFixed(2))
			}
		}
		for _, c := range pay.Captures {
			gotCaps = append(gotCaps, c.Amount.StringFixed(2))
			held = held.Add(c.Amount)
		}
		for _, r := range pay.Refunds {
			gotRefs = append(gotRefs, r.Amount.StringFixed(2))
			held = held.Add(r.Amount)
		}
		slices.Sort(wantCaps)
		slices.Sort(gotCaps)
		if !slices.Equal(wantCaps, gotCaps) || !slices.Equal(wantRefs, gotRefs) || pay.Status != "CLOSED" {
			t.Errorf("payment %d (%s): %s, captures %v refunds %v; want CLOSED, captures %v refunds %v",
				i, pp.id, pay.Status, gotCaps, gotRefs, wantCaps, wantRefs)
		}
	}
	return held
}
