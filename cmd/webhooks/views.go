package webhooks

import (
	"github.com/bnpl-cli/bnpl/cmd/webhooks/shared"
	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// ListColumns are the columns of a payment-webhooks table.
var ListColumns = []output.Column{
	{Header: "ID", Path: "id", Kind: output.KindID},
	{Header: "URL", Path: "url", Kind: output.Below(output.KindID)},
	{Header: "TEST", Path: "is_test", Kind: output.KindPlain},
	{Header: "HEADER", Path: "header.title", Kind: output.KindPlain},
	{Header: "VALUE", Path: "header.value", Kind: output.KindPlain},
}

// Detail is the view of one payment webhook; the client has already
// masked the header value.
func Detail(w *api.Webhook) *output.Detail {
	mode := "live"
	if w.IsTest {
		mode = "test"
	}
	return &output.Detail{Fields: append([]output.Field{
		{Label: "ID", Value: w.ID},
		{Label: "URL", Value: w.URL},
		{Label: "Mode", Value: mode},
	}, shared.HeaderFields(w.Header)...)}
}
