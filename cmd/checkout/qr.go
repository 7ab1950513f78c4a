package checkout

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/skip2/go-qrcode"
	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// QROptions are the inputs of `checkout qr`.
type QROptions struct {
	ID     string
	PNG    string
	Invert bool

	IO      *output.IOStreams
	Notice  func(format string, args ...any)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
}

func newQRCmd(f *cmdutil.Factory, run func(context.Context, *QROptions) error) *cobra.Command {
	opts := &QROptions{IO: f.IO, Notice: f.Noticef, Client: f.Client, Printer: f.Printer}
	if run == nil {
		run = qrRun
	}
	cmd := cmdutil.OneRecord(&cobra.Command{
		Use:   "qr <session-id>",
		Short: "Show the checkout URL as a QR code to scan with a phone",
		Long: `Draw the session's checkout URL as a QR code in the terminal, with the URL under
it, so that a person can open the checkout by scanning the screen with a phone.
The code is drawn light on dark; --invert draws it for a light background. A
terminal too narrow for it gets the URL alone, and a warning saying so.

--png FILE saves instead the PNG image that the service serves for the session
(its hpp_link_qr), "-" writing it to stdout. With -o json or --jq the session id,
status, checkout URL and QR image URL are printed instead of the drawing.`,
		Example: `  bnpl checkout qr 8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c
  bnpl checkout qr 8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c --invert
  bnpl checkout qr 8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c --png checkout-qr.png`,
	}, "session", "a session id", &opts.ID, func(ctx context.Context) error { return run(ctx, opts) })
	cmd.Flags().StringVar(&opts.PNG, "png", "", "save the service's PNG of the QR code to this file (- for stdout)")
	cmd.Flags().BoolVar(&opts.Invert, "invert", false, "draw dark on light, for terminals with a light background")
	return cmd
}

func qrRun(ctx context.Context, o *QROptions) error {
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return err
	}
	if o.PNG != "" {
		img, err := client.GetCheckoutQR(ctx, o.ID)
		if err != nil {
			return err
		}
		if o.PNG == "-" {
			_, err = o.IO.Out.Write(img)
			return err
		}
		if err := os.WriteFile(o.PNG, img, 0o644); err != nil {
			return fmt.Errorf("saving the QR code: %w", err)
		}
		o.Notice("saved the QR code of session %s to %s (%d bytes)", o.ID, o.PNG, len(img))
		return nil
	}

	s, url, err := checkoutURL(ctx, client, o.ID)
	if err != nil {
		return err
	}
	if printer.IsJSON() {
		return printURLRecord(printer, s, url, "qr_code", s.QRCodeURL())
	}
	code, err := qrcode.New(url, qrcode.Medium)
	if err != nil {
		return fmt.Errorf("drawing the QR code: %w", err)
	}
	drawing := code.ToSmallString(o.Invert)
	if cols := drawingWidth(drawing); o.IO.IsStdoutTTY() && cols > o.IO.TerminalWidth() {
		// A QR code cannot be wrapped: folded by the terminal, no phone
		// reads it.
		o.Notice("warning: the QR code is %d columns wide, wider than this terminal (%d): widen it, or save the image with --png FILE", cols, o.IO.TerminalWidth())
		drawing = ""
	}
	_, err = fmt.Fprintf(o.IO.Out, "%s%s\n", drawing, url)
	return err
}

// drawingWidth is how many columns the widest line of a drawing takes.
func drawingWidth(drawing string) int {
	widest := 0
	for _, line := range strings.Split(drawing, "\n") {
		widest = max(widest, utf8.RuneCountInString(line))
	}
	return widest
}

// checkoutURL reads session id and its checkout URL; a session that has
// none (pre-scoring refused it) is a *noURLError.
func checkoutURL(ctx context.Context, client *api.Client, id string) (*api.CheckoutSession, string, error) {
	s, err := client.GetCheckout(ctx, id)
	if err != nil {
		return nil, "", err
	}
	u := s.WebURL()
	if u == "" {
		return s, "", &noURLError{session: s}
	}
	return s, u, nil
}

// printURLRecord prints, for -o json, the session's id, status and
// checkout URL, with more fields given as name, value pairs.
func printURLRecord(printer *output.Printer, s *api.CheckoutSession, u string, more ...string) error {
	fields := map[string]string{"id": s.ID, "status": s.Status, "web_url": u}
	for i := 0; i+1 < len(more); i += 2 {
		fields[more[i]] = more[i+1]
	}
	rec, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	return printer.Object(rec, nil)
}

// noURLError is a session that has no checkout to open: pre-scoring
// refused it.
type noURLError struct{ session *api.CheckoutSession }

func (e *noURLError) Error() string {
	if r := e.session.RejectionReason(); r != "" {
		return fmt.Sprintf("session %s has no checkout URL: pre-scoring rejected it (%s)", e.session.ID, r)
	}
	return fmt.Sprintf("session %s has no checkout URL (status %s)", e.session.ID, e.session.Status)
}

func (e *noURLError) Hint() string {
	return "a rejected session cannot be checked out; create a new one (`bnpl checkout create`)"
}
