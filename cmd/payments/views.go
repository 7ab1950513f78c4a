package payments

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/cmd/disputes"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// ListColumns are the columns of a payments table.
var ListColumns = []output.Column{
	{Header: "ID", Path: "id", Kind: output.KindID},
	{Header: "STATUS", Path: "status", Kind: output.KindStatus, Values: paymentStatuses},
	{Header: "AMOUNT", Path: "amount", Kind: output.KindMoney, CurrencyPath: "currency"},
	{Header: "CURRENCY", Path: "currency", TableHidden: true},
	// An order number is what `--order` finds a payment by: wrapped, never
	// cut.
	{Header: "REFERENCE", Path: "order.reference_id", Kind: output.Wrapped(output.KindReference)},
	{Header: "CREATED", Path: "created_at", Kind: output.KindTime},
	// Totals of the payment's moves, for reconciliation; shown only when
	// --columns names them (captured,refunded,refundable).
	{Header: "CAPTURED", Kind: output.KindMoney, CurrencyPath: "currency", OptIn: true, Value: moveTotal(func(p *api.Payment) decimal.Decimal { return p.Captured() })},
	{Header: "REFUNDED", Kind: output.KindMoney, CurrencyPath: "currency", OptIn: true, Value: moveTotal(func(p *api.Payment) decimal.Decimal { return p.Refunded() })},
	{Header: "REFUNDABLE", Kind: output.KindMoney, CurrencyPath: "currency", OptIn: true, Value: moveTotal(func(p *api.Payment) decimal.Decimal { return p.Refundable() })},
}

// paymentStatuses are the statuses a payment may be in.
var paymentStatuses = []string{api.StatusCreated, api.StatusAuthorized, api.StatusClosed, api.StatusRejected, api.StatusExpired}

// BuyerColumns are the columns of a buyer search (`payments list --buyer`):
// the list's, with the buyer beside the amount, so that a person sees who
// matched: by the buyer's phone for a query written as a phone number, by
// the email for one holding an "@", else by the name. The buyer is shown
// whole, wrapped rather than cut; the order number may give way to it.
func BuyerColumns(by string) []output.Column {
	path, header := "buyer.name", "BUYER"
	switch by {
	case "phone":
		path, header = "buyer.phone", "BUYER PHONE"
	case "email":
		path, header = "buyer.email", "BUYER EMAIL"
	}
	buyer := output.Column{Header: header, Path: path, Kind: output.Wrapped(output.KindText)}
	cols := make([]output.Column, 0, len(ListColumns)+1)
	for _, c := range ListColumns {
		if c.Header == "REFERENCE" {
			// Here the buyer is what matched: the order number gives way
			// to it, as a reference does in any table.
			c.Kind = output.KindReference
		}
		cols = append(cols, c)
		if c.Header == "AMOUNT" {
			cols = append(cols, buyer)
		}
	}
	return cols
}

// moveTotal is a column's value computed from the payment a record holds.
func moveTotal(total func(*api.Payment) decimal.Decimal) func(map[string]any) string {
	return func(rec map[string]any) string {
		b, err := json.Marshal(rec)
		if err != nil {
			return ""
		}
		var p api.Payment
		if json.Unmarshal(b, &p) != nil {
			return ""
		}
		return money.Format(total(&p), p.Currency)
	}
}

// moveColumns are the columns of a payment's captures or refunds, amounts
// in the payment's currency like the totals above them.
func moveColumns(currency string, extra ...output.Column) []output.Column {
	cols := []output.Column{
		{Header: "ID", Path: "id", Kind: output.KindID},
		{Header: "AMOUNT", Path: "amount", Kind: output.KindMoney, Currency: currency},
		// The move's reference id is an id: never cut nor broken; on a
		// narrow terminal it goes on the line under its row.
		{Header: "REFERENCE", Path: "reference_id", Kind: output.Below(output.KindID)},
	}
	cols = append(cols, extra...)
	return append(cols, output.Column{Header: "CREATED", Path: "created_at", Kind: output.KindTime})
}

// Detail is the view of one payment for people: its fields, the totals a
// merchant acts on, and its captures and refunds.
func Detail(p *api.Payment) *output.Detail { return DetailWithDisputes(p, nil) }

// disputeColumns are the columns of a payment's disputes section.
func disputeColumns(currency string) []output.Column {
	return []output.Column{
		{Header: "ID", Path: "id", Kind: output.KindID},
		{Header: "STATUS", Path: "status", Kind: output.KindStatus, Values: api.DisputeStatuses},
		{Header: "REASON", Path: "reason", Kind: output.KindEnum, Values: api.DisputeReasons},
		{Header: "AMOUNT", Path: "amount", Kind: output.KindMoney, CurrencyPath: "currency", Currency: currency},
		disputes.DaysLeftColumn,
	}
}

// DetailWithDisputes is Detail with the payment's disputes: a section
// listing them, and Refundable shown as blocked while one is open.
func DetailWithDisputes(p *api.Payment, disputes []api.Dispute) *output.Detail {
	cur := p.Currency
	amt := func(label string, d decimal.Decimal) output.Field {
		return output.Field{Label: label, Value: money.Format(d, cur), Kind: output.KindMoney, Currency: cur}
	}
	at := func(label string, t *time.Time) output.Field {
		return output.Field{Label: label, Value: t.UTC().Format(time.RFC3339), Kind: output.KindTime}
	}
	ref := ""
	if p.Order != nil {
		ref = p.Order.ReferenceID
	}
	mode := "test"
	if !p.IsTest {
		mode = "live"
	}
	fields := []output.Field{
		{Label: "ID", Value: p.ID},
		{Label: "Status", Value: p.Status, Kind: output.KindStatus},
		{Label: "Mode", Value: mode},
		amt("Amount", p.Amount),
		{Label: "Currency", Value: cur, TableHidden: true},
		{Label: "Reference", Value: ref},
	}
	if p.Buyer != nil && p.Buyer.Name != "" {
		fields = append(fields, output.Field{Label: "Buyer", Value: p.Buyer.Name + " <" + p.Buyer.Email + ">"})
	}
	if p.Buyer != nil && p.Buyer.Phone != "" {
		// What a search by phone matched (payments list --buyer).
		fields = append(fields, output.Field{Label: "Phone", Value: p.Buyer.Phone})
	}
	if p.CreatedAt != nil {
		fields = append(fields, at("Created", p.CreatedAt))
	}
	expired := p.AuthorizationExpired(viewNow())
	// On a closed payment the authorization's expiry no longer matters.
	if p.ExpiresAt != nil && p.Status != api.StatusClosed {
		expires := at("Expires", p.ExpiresAt)
		if expired {
			expires.Note = "(expired)"
		}
		fields = append(fields, expires)
	}
	capturable := amt("Capturable", p.Capturable())
	if expired {
		capturable = amt("Capturable", decimal.Zero)
	}
	refundable := amt("Refundable", p.Refundable())
	if d := api.ActiveDispute(disputes); d != nil {
		refundable = output.Field{Label: "Refundable", Value: "blocked: dispute " + d.ID + " is open"}
	}
	fields = append(fields,
		amt("Captured", p.Captured()),
		amt("Refunded", p.Refunded()),
		capturable,
		refundable,
	)
	d := &output.Detail{Fields: fields}
	if recs := output.SubRecords(subObject(p.Raw(), "order"), "items"); len(recs) > 0 {
		d.Sections = append(d.Sections, output.Section{Title: "Items", Columns: itemColumns(cur), Records: recs})
	}
	if recs := output.SubRecords(p.Raw(), "captures"); len(recs) > 0 {
		d.Sections = append(d.Sections, output.Section{Title: "Captures", Columns: moveColumns(cur), Records: recs})
	}
	if recs := output.SubRecords(p.Raw(), "refunds"); len(recs) > 0 {
		d.Sections = append(d.Sections, output.Section{Title: "Refunds", Columns: moveColumns(cur, output.Column{Header: "REASON", Path: "reason", Kind: output.Wrapped(output.KindText)}), Records: recs})
	}
	if len(disputes) > 0 {
		recs := make([]json.RawMessage, 0, len(disputes))
		for i := range disputes {
			if r := disputes[i].Raw(); r != nil {
				recs = append(recs, r)
			}
		}
		d.Sections = append(d.Sections, output.Section{Title: "Disputes", Columns: disputeColumns(cur), Records: recs})
	}
	return d
}

// itemColumns are the columns of a payment's order items.
func itemColumns(currency string) []output.Column {
	return []output.Column{
		{Header: "REFERENCE", Path: "reference_id", Kind: output.KindReference},
		{Header: "TITLE", Path: "title", Kind: output.KindText},
		{Header: "QTY", Path: "quantity", Kind: output.KindPlain},
		{Header: "UNIT PRICE", Path: "unit_price", Kind: output.KindMoney, Currency: currency},
	}
}

// subObject is the raw value of one object field, nil when absent.
func subObject(raw json.RawMessage, field string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return obj[field]
}

// viewNow is the clock the views judge an authorization's expiry by.
var viewNow = time.Now
