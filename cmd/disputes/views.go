package disputes

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// ListColumns are the columns of a disputes table.
var ListColumns = []output.Column{
	{Header: "ID", Path: "id"},
	{Header: "STATUS", Path: "status"},
	{Header: "REASON", Path: "reason"},
	{Header: "AMOUNT", Path: "amount"},
	{Header: "CURRENCY", Path: "currency"},
	{Header: "PAYMENT", Path: "payment_id"},
	{Header: "DAYS LEFT", Path: "days_left"},
	{Header: "CREATED", Path: "created_at"},
}

var itemColumns = []output.Column{
	{Header: "REFERENCE", Path: "reference_id"},
	{Header: "TITLE", Path: "title"},
	{Header: "UNIT PRICE", Path: "unit_price"},
}

var historyColumns = []output.Column{
	{Header: "CREATED", Path: "created_at"},
	{Header: "SOURCE", Path: "source"},
	{Header: "EVENT", Path: "event_type"},
	{Header: "BY", Path: "created_by"},
	{Header: "CONTENT", Path: "content"},
	{Header: "ATTACHMENTS", Value: func(rec map[string]any) string {
		v, _ := output.Lookup(rec, "attachments")
		list, _ := v.([]any)
		parts := make([]string, 0, len(list))
		for _, a := range list {
			parts = append(parts, output.String(a))
		}
		return strings.Join(parts, ",")
	}},
}

const timeLayout = "2006-01-02 15:04:05Z"

// Detail is the view of one dispute for people: its fields, then its
// items and history.
func Detail(d *api.Dispute) *output.Detail {
	fields := []output.Field{
		{Label: "ID", Value: d.ID},
		{Label: "Status", Value: d.Status},
		{Label: "Reason", Value: d.Reason},
		{Label: "Amount", Value: d.Amount.String() + " " + d.Currency},
		{Label: "Payment", Value: d.PaymentID},
		{Label: "Order", Value: d.OrderNumber},
		{Label: "Days left", Value: strconv.Itoa(d.DaysLeft)},
	}
	if d.CreatedAt != nil {
		fields = append(fields, output.Field{Label: "Created", Value: d.CreatedAt.UTC().Format(timeLayout)})
	}
	if d.ExpiredAt != nil {
		fields = append(fields, output.Field{Label: "Expires", Value: d.ExpiredAt.UTC().Format(timeLayout)})
	}
	if d.Comment != "" {
		fields = append(fields, output.Field{Label: "Comment", Value: d.Comment})
	}
	if len(d.Attachments) > 0 {
		fields = append(fields, output.Field{Label: "Attachments", Value: strings.Join(d.Attachments, ", ")})
	}
	view := &output.Detail{Fields: fields}
	view.Sections = append(view.Sections,
		output.Section{Title: "Items", Columns: itemColumns, Records: subRecords(d.Raw(), "items")},
		output.Section{Title: "History", Columns: historyColumns, Records: subRecords(d.Raw(), "history")},
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
		fields = append(fields, output.Field{Label: "Created", Value: e.CreatedAt.UTC().Format(timeLayout)})
	}
	fields = append(fields, output.Field{Label: "Attachments", Value: strings.Join(e.AttachmentIDs, ", ")})
	return &output.Detail{Fields: fields}
}

// subRecords takes the raw elements of one array field, so that sections
// show exactly what the service sent.
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
