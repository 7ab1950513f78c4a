package disputes

import (
	"strconv"
	"strings"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// ListColumns are the columns of a disputes table.
var ListColumns = listColumns(output.Column{Header: "CREATED", Path: "created_at", Kind: output.KindTime})

// DueColumns are the columns of `disputes list --due`: the due date
// (expired_at, the deadline to answer) in place of the creation time.
var DueColumns = listColumns(output.Column{Header: "DUE", Path: "expired_at", Kind: output.KindTime})

// listColumns are a disputes table's columns, the time shown last.
func listColumns(when output.Column) []output.Column {
	return []output.Column{
		{Header: "ID", Path: "id", Kind: output.KindID},
		{Header: "STATUS", Path: "status", Kind: output.KindStatus, Values: api.DisputeStatuses},
		{Header: "REASON", Path: "reason", Kind: output.KindEnum, Values: api.DisputeReasons},
		{Header: "AMOUNT", Path: "amount", Kind: output.KindMoney, CurrencyPath: "currency"},
		{Header: "CURRENCY", Path: "currency", TableHidden: true},
		{Header: "PAYMENT", Path: "payment_id", Kind: output.KindLinkID},
		DaysLeftColumn,
		when,
	}
}

// DaysLeftColumn is the days a merchant has left to answer a dispute,
// shown for an open one only: a refunded, declined or cancelled dispute
// has nothing left to answer, and a 0 there would read as urgent.
var DaysLeftColumn = output.Column{Header: "DAYS", Path: "days_left", Kind: output.KindDaysLeft, Value: func(rec map[string]any) string {
	status, _ := output.Lookup(rec, "status")
	if d := (api.Dispute{Status: output.String(status)}); !d.Active() {
		return ""
	}
	days, _ := output.Lookup(rec, "days_left")
	return output.String(days)
}}

func itemColumns(currency string) []output.Column {
	return []output.Column{
		{Header: "REFERENCE", Path: "reference_id", Kind: output.KindReference},
		{Header: "TITLE", Path: "title", Kind: output.KindText},
		{Header: "UNIT PRICE", Path: "unit_price", Kind: output.KindMoney, Currency: currency},
	}
}

// historyColumns are a dispute's history: when, who and what happened are
// what it is read for, so the time, the event and who did it are never cut,
// and the content wraps, or goes on the lines under its row when the line
// has no room for it (at 80 columns).
var historyColumns = []output.Column{
	{Header: "CREATED", Path: "created_at", Kind: output.Whole(output.KindTime)},
	{Header: "SOURCE", Path: "source", Kind: output.KindPlain},
	{Header: "EVENT", Path: "event_type", Kind: output.Whole(output.KindPlain)},
	{Header: "BY", Path: "created_by", Kind: output.Whole(output.KindText)},
	{Header: "CONTENT", Path: "content", Kind: output.Below(output.KindText)},
	// Attachment ids are never cut; the dispute's own list shows them too,
	// so a narrow table drops them whole.
	{Header: "ATTACHMENTS", Kind: output.KindLinkID, Value: func(rec map[string]any) string {
		v, _ := output.Lookup(rec, "attachments")
		list, _ := v.([]any)
		parts := make([]string, 0, len(list))
		for _, a := range list {
			parts = append(parts, output.String(a))
		}
		return strings.Join(parts, ",")
	}},
}

// Detail is the view of one dispute for people: its fields, then its
// items and history.
func Detail(d *api.Dispute) *output.Detail {
	fields := []output.Field{
		{Label: "ID", Value: d.ID},
		{Label: "Status", Value: d.Status, Kind: output.KindStatus},
		{Label: "Reason", Value: d.Reason},
		{Label: "Amount", Value: d.Amount.String(), Kind: output.KindMoney, Currency: d.Currency},
		{Label: "Currency", Value: d.Currency, TableHidden: true},
		{Label: "Payment", Value: d.PaymentID},
		{Label: "Order", Value: d.OrderNumber},
	}
	if d.Active() {
		fields = append(fields, output.Field{Label: "Days left", Value: strconv.Itoa(d.DaysLeft), Kind: output.KindDaysLeft})
	}
	if d.CreatedAt != nil {
		fields = append(fields, output.Field{Label: "Created", Value: d.CreatedAt.UTC().Format(time.RFC3339), Kind: output.KindTime})
	}
	if d.ExpiredAt != nil {
		fields = append(fields, output.Field{Label: "Expires", Value: d.ExpiredAt.UTC().Format(time.RFC3339), Kind: output.KindTime})
	}
	if d.Comment != "" {
		fields = append(fields, output.Field{Label: "Comment", Value: d.Comment})
	}
	if len(d.Attachments) > 0 {
		fields = append(fields, output.Field{Label: "Attachments", Value: strings.Join(d.Attachments, ", ")})
	}
	view := &output.Detail{Fields: fields}
	view.Sections = append(view.Sections,
		output.Section{Title: "Items", Columns: itemColumns(d.Currency), Records: output.SubRecords(d.Raw(), "items")},
		output.Section{Title: "History", Columns: historyColumns, Records: output.SubRecords(d.Raw(), "history")},
	)
	return view
}

func evidenceDetail(e *api.Evidence) *output.Detail {
	fields := []output.Field{
		{Label: "ID", Value: e.ID},
		{Label: "Dispute", Value: e.DisputeID},
		{Label: "Content", Value: e.Content},
		{Label: "By", Value: e.CreatedBy},
	}
	if e.CreatedAt != nil {
		fields = append(fields, output.Field{Label: "Created", Value: e.CreatedAt.UTC().Format(time.RFC3339), Kind: output.KindTime})
	}
	fields = append(fields, output.Field{Label: "Attachments", Value: strings.Join(e.AttachmentIDs, ", ")})
	return &output.Detail{Fields: fields}
}
