package payments

import (
	"encoding/json"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// ListColumns are the columns of a payments table.
var ListColumns = []output.Column{
	{Header: "ID", Path: "id"},
	{Header: "STATUS", Path: "status"},
	{Header: "AMOUNT", Path: "amount"},
	{Header: "CURRENCY", Path: "currency"},
	{Header: "REFERENCE", Path: "order.reference_id"},
	{Header: "CREATED", Path: "created_at"},
}

// moveColumns are the columns of a payment's captures or refunds, amounts
// written with the currency's places like the totals above them.
func moveColumns(currency string, extra ...output.Column) []output.Column {
	cols := []output.Column{
		{Header: "ID", Path: "id"},
		{Header: "AMOUNT", Path: "amount", Value: func(rec map[string]any) string {
			return formatAmount(output.String(rec["amount"]), currency)
		}},
		{Header: "REFERENCE", Path: "reference_id"},
	}
	cols = append(cols, extra...)
	return append(cols, output.Column{Header: "CREATED", Path: "created_at"})
}

// formatAmount writes a service amount with the currency's places, or as
// sent when it is not a plain decimal.
func formatAmount(v, currency string) string {
	d, err := decimal.NewFromString(v)
	if err != nil {
		return v
	}
	return money.Format(d, currency)
}

// Detail is the view of one payment for people: its fields, the totals a
// merchant acts on, and its captures and refunds.
func Detail(p *api.Payment) *output.Detail {
	cur := p.Currency
	amt := func(d interface{ StringFixed(int32) string }) string { return d.StringFixed(money.Places(cur)) }
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
		{Label: "Status", Value: p.Status},
		{Label: "Mode", Value: mode},
		{Label: "Amount", Value: amt(p.Amount) + " " + cur},
		{Label: "Reference", Value: ref},
	}
	if p.Buyer != nil && p.Buyer.Name != "" {
		fields = append(fields, output.Field{Label: "Buyer", Value: p.Buyer.Name + " <" + p.Buyer.Email + ">"})
	}
	if p.CreatedAt != nil {
		fields = append(fields, output.Field{Label: "Created", Value: p.CreatedAt.UTC().Format("2006-01-02 15:04:05Z")})
	}
	if p.ExpiresAt != nil {
		fields = append(fields, output.Field{Label: "Expires", Value: p.ExpiresAt.UTC().Format("2006-01-02 15:04:05Z")})
	}
	fields = append(fields,
		output.Field{Label: "Captured", Value: amt(p.Captured())},
		output.Field{Label: "Refunded", Value: amt(p.Refunded())},
		output.Field{Label: "Capturable", Value: amt(p.Capturable())},
		output.Field{Label: "Refundable", Value: amt(p.Refundable())},
	)
	d := &output.Detail{Fields: fields}
	if recs := subRecords(p.Raw(), "captures"); len(recs) > 0 {
		d.Sections = append(d.Sections, output.Section{Title: "Captures", Columns: moveColumns(cur), Records: recs})
	}
	if recs := subRecords(p.Raw(), "refunds"); len(recs) > 0 {
		d.Sections = append(d.Sections, output.Section{Title: "Refunds", Columns: moveColumns(cur, output.Column{Header: "REASON", Path: "reason"}), Records: recs})
	}
	return d
}

// subRecords takes the raw elements of one array field, so sections show
// exactly what the service sent.
func subRecords(raw json.RawMessage, field string) []json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	var recs []json.RawMessage
	if json.Unmarshal(obj[field], &recs) != nil {
		return nil
	}
	return recs
}
