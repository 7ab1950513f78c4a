// Package checkout holds the `bnpl checkout` commands: creating a checkout
// session (and its payment), reading it back, and showing its checkout URL
// as a QR code a customer can scan.
package checkout

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/money"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// NewCmd returns `bnpl checkout` and its verbs.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "checkout <verb>",
		Short: "Create checkout sessions and read them back",
		Long: `A checkout session is where a payment starts: creating one also creates the
payment, runs the service's pre-scoring, and gives the URL where the customer
completes checkout.`,
	}
	cmd.AddCommand(newCreateCmd(f, nil), newGetCmd(f, nil), newQRCmd(f, nil), newOpenCmd(f, nil))
	return cmd
}

// SessionDetail is the view of a session for people: what it is, where the
// customer goes, and why pre-scoring refused it, if it did.
func SessionDetail(s *api.CheckoutSession) *output.Detail {
	p := &s.Payment
	fields := []output.Field{
		{Label: "Session", Value: s.ID},
		{Label: "Status", Value: s.Status, Kind: output.KindStatus},
	}
	if reason := s.RejectionReason(); reason != "" || s.Status == api.SessionRejected {
		fields = append(fields, output.Field{Label: "Rejection", Value: reason})
	}
	fields = append(fields,
		output.Field{Label: "Payment", Value: p.ID},
		output.Field{Label: "Payment status", Value: p.Status, Kind: output.KindStatus},
		output.Field{Label: "Amount", Value: money.Format(p.Amount, p.Currency), Kind: output.KindMoney, Currency: p.Currency},
		output.Field{Label: "Currency", Value: p.Currency, TableHidden: true},
	)
	if p.Order != nil && p.Order.ReferenceID != "" {
		fields = append(fields, output.Field{Label: "Reference", Value: p.Order.ReferenceID})
	}
	if p.Buyer != nil && p.Buyer.Name != "" {
		fields = append(fields, output.Field{Label: "Buyer", Value: p.Buyer.Name + " <" + p.Buyer.Email + ">"})
	}
	mode := "live"
	if p.IsTest {
		mode = "test"
	}
	fields = append(fields, output.Field{Label: "Mode", Value: mode})
	if s.MerchantCode != "" {
		fields = append(fields, output.Field{Label: "Merchant", Value: s.MerchantCode})
	}
	if s.Lang != "" {
		fields = append(fields, output.Field{Label: "Lang", Value: s.Lang})
	}
	if exp := s.Configuration.ExpiresAt; exp != nil {
		fields = append(fields, output.Field{Label: "Expires", Value: exp.UTC().Format(time.RFC3339), Kind: output.KindTime})
	}
	if u := s.WebURL(); u != "" {
		fields = append(fields, output.Field{Label: "Checkout URL", Value: u})
	}
	return &output.Detail{Fields: fields}
}
