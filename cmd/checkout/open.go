package checkout

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// OpenOptions are the inputs of `checkout open`.
type OpenOptions struct {
	ID string

	IO      *output.IOStreams
	Getenv  func(string) string
	Notice  func(format string, args ...any)
	Client  func() (*api.Client, error)
	Printer func() (*output.Printer, error)
	// Browser is the command line that opens a URL (the URL is its last
	// argument), or nil when there is no browser to open it with.
	Browser func() []string
	// Run runs the browser command and waits for it.
	Run func(argv []string) error
}

func newOpenCmd(f *cmdutil.Factory, run func(context.Context, *OpenOptions) error) *cobra.Command {
	opts := &OpenOptions{IO: f.IO, Getenv: f.Getenv, Notice: f.Noticef, Client: f.Client, Printer: f.Printer, Run: runBrowser}
	opts.Browser = func() []string { return BrowserCommand(opts.Getenv, runtime.GOOS, exec.LookPath) }
	if run == nil {
		run = openRun
	}
	cmd := cmdutil.OneRecord(&cobra.Command{
		Use:   "open <session-id>",
		Short: "Open a session's checkout URL in the browser",
		Long: `Open the session's checkout URL (its web_url) in the browser, to play the customer
on the hosted payment page.

The browser is the command in BROWSER when it is set (the URL is added as its last
argument, or replaces %s in it), else the desktop's opener (xdg-open, open,
rundll32). The URL is printed on stdout instead when BROWSER is "none", when there
is no browser to open it with, and when stdout is not a terminal (unless BROWSER
names one), so that scripts can take it. With -o json the session id, status and
checkout URL are printed.

A session that pre-scoring rejected has no checkout URL: the command fails, as
checkout qr does. On the embedded sandbox the URL opens once ` + "`bnpl sandbox serve`" + `
runs.`,
		Example: `  bnpl checkout open 8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c
  BROWSER=firefox bnpl checkout open 8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c
  BROWSER=none bnpl checkout open 8b1f6a2c-3d4e-4f5a-9b6c-7d8e9f0a1b2c`,
	}, "session", "a session id", &opts.ID, func(ctx context.Context) error { return run(ctx, opts) })
	return cmd
}

func openRun(ctx context.Context, o *OpenOptions) error {
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return err
	}
	s, u, err := checkoutURL(ctx, client, o.ID)
	if err != nil {
		return err
	}
	if printer.IsJSON() {
		return printURLRecord(printer, s, u)
	}
	explicit := strings.TrimSpace(o.Getenv("BROWSER")) != ""
	var argv []string
	if explicit || o.IO.IsStdoutTTY() {
		argv = o.Browser()
	}
	if len(argv) == 0 {
		if o.IO.IsStdoutTTY() && !strings.EqualFold(strings.TrimSpace(o.Getenv("BROWSER")), "none") {
			o.Notice("no browser to open it with (set BROWSER to one): open this URL yourself")
		}
		_, err := fmt.Fprintln(o.IO.Out, u)
		return err
	}
	argv = browserArgs(argv, u)
	o.Notice("opening %s in the browser", u)
	if err := o.Run(argv); err != nil {
		// The URL is what the person came for: give it to them anyway.
		fmt.Fprintf(o.IO.ErrOut, "warning: the browser did not open (%s: %v): open this URL yourself\n", argv[0], err)
		_, err := fmt.Fprintln(o.IO.Out, u)
		return err
	}
	return nil
}

// BrowserCommand is the command that opens url in a browser, with a "%s"
// where the URL goes, or nil when there is none: BROWSER when set
// ("none" meaning none), else the platform's opener when it is installed
// and, on Linux and the BSDs, a display is there to show the page.
func BrowserCommand(getenv func(string) string, goos string, lookPath func(string) (string, error)) []string {
	if b := strings.TrimSpace(getenv("BROWSER")); b != "" {
		if strings.EqualFold(b, "none") {
			return nil
		}
		argv := strings.Fields(b)
		if !strings.Contains(b, "%s") {
			argv = append(argv, "%s")
		}
		return argv
	}
	switch goos {
	case "darwin":
		return []string{"open", "%s"}
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler", "%s"}
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return nil
	}
	for _, opener := range []string{"xdg-open", "wslview"} {
		if _, err := lookPath(opener); err == nil {
			return []string{opener, "%s"}
		}
	}
	return nil
}

// browserArgs puts url where the command's "%s" are.
func browserArgs(argv []string, url string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, "%s", url)
	}
	return out
}

// runBrowser runs argv (with the URL in place) detached from the
// terminal's input, and waits for it: openers such as xdg-open hand the URL
// to the browser and return.
func runBrowser(argv []string) error {
	if len(argv) == 0 {
		return errors.New("no browser command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}
